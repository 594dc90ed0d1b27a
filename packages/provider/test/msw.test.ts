import { PROVIDER_BASE_URL, useMswServer } from '@finsync/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxProvider, createBareHostRedirectHandlers, createProviderHandlers } from '../src/msw.js';

const WWW = PROVIDER_BASE_URL;
const BARE = 'https://lunchflow.app/api/v1';
const KEY = 'sandbox-key';

const provider = new SandboxProvider({ seed: 21 });
const reference = new SandboxProvider({ seed: 21 });
const server = useMswServer(...createProviderHandlers(provider));

afterEach(() => provider.faults.clear());

async function direct(path: string): Promise<string> {
  const response = await reference.handle(new Request(`${WWW}${path}`, { headers: { 'x-api-key': KEY } }));
  return response.text();
}

describe('createProviderHandlers', () => {
  it('answers fetch on the default www base URL from the provider', async () => {
    for (const path of [
      '/accounts',
      '/accounts/4711/balance',
      '/accounts/4711/transactions?from=2026-06-01&include_pending=true',
      '/accounts/5001/holdings',
    ]) {
      const response = await fetch(`${WWW}${path}`, { headers: { 'x-api-key': KEY } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(await direct(path));
    }
    expect(provider.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/v1/accounts/5001/holdings',
      status: 200,
    });
  });

  it('passes through errors and faults', async () => {
    expect((await fetch(`${WWW}/accounts`)).status).toBe(401);
    expect((await fetch(`${WWW}/accounts/5002/holdings`, { headers: { 'x-api-key': KEY } })).status).toBe(
      501,
    );
    provider.faults.add({ kind: 'rate-limit-500', retryAfterSeconds: 30, match: { accountId: '4711' } });
    const wrapped = await fetch(`${WWW}/accounts/4711/transactions`, { headers: { 'x-api-key': KEY } });
    expect(wrapped.status).toBe(500);
    expect(((await wrapped.json()) as { message: string }).message).toContain('(429 - Rate limit exceeded)');
  });

  it('turns network-error into a rejected fetch', async () => {
    provider.faults.add({ kind: 'network-error', times: 1 });
    await expect(fetch(`${WWW}/accounts`, { headers: { 'x-api-key': KEY } })).rejects.toThrow(TypeError);
    expect((await fetch(`${WWW}/accounts`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
  });

  it('serves malformed JSON as a 200 that fails to parse', async () => {
    provider.faults.add({ kind: 'malformed-json', times: 1 });
    const response = await fetch(`${WWW}/accounts`, { headers: { 'x-api-key': KEY } });
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });

  it('keeps providers on different base URLs independent', async () => {
    const other = new SandboxProvider({ apiKey: 'other' });
    server.use(...createProviderHandlers(other, { baseUrl: 'https://sandbox.test/api/v1/' }));
    other.faults.add({ kind: 'status', status: 503 });
    expect(
      (await fetch('https://sandbox.test/api/v1/accounts', { headers: { 'x-api-key': 'other' } })).status,
    ).toBe(503);
    expect((await fetch(`${WWW}/accounts`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect(other.requestCount).toBe(1);
  });
});

describe('createBareHostRedirectHandlers', () => {
  it('answers the bare host with a 308 to the same path and query on www', async () => {
    server.use(...createBareHostRedirectHandlers());
    const response = await fetch(`${BARE}/accounts/4711/transactions?from=2026-06-01&include_pending=true`, {
      headers: { 'x-api-key': KEY },
      redirect: 'manual',
    });
    expect(response.status).toBe(308);
    const location = `${WWW}/accounts/4711/transactions?from=2026-06-01&include_pending=true`;
    expect(response.headers.get('location')).toBe(location);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ redirect: location, status: 308 });
  });

  it('is followed by a fetch that allows redirects, landing on the provider', async () => {
    server.use(...createBareHostRedirectHandlers());
    const response = await fetch(`${BARE}/accounts/4711/balance`, { headers: { 'x-api-key': KEY } });
    expect(response.status).toBe(200);
    expect(response.redirected).toBe(true);
    expect(await response.text()).toBe(await direct('/accounts/4711/balance'));
  });

  it('rejects a fetch that forbids redirects, and supports custom hosts', async () => {
    server.use(...createBareHostRedirectHandlers({ from: 'https://old.test/api', to: `${WWW}` }));
    await expect(fetch('https://old.test/api/accounts', { redirect: 'error' })).rejects.toThrow(TypeError);
    const response = await fetch('https://old.test/api', { redirect: 'manual' });
    expect(response.headers.get('location')).toBe(WWW);
  });
});
