import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { KEY, call } from './helpers.js';

describe('startSandboxServer', () => {
  const provider = new SandboxProvider({ seed: 11 });
  const twin = new SandboxProvider({ seed: 11 });
  let server: SandboxServer;

  beforeAll(async () => {
    server = await startSandboxServer(provider);
  });
  afterAll(async () => {
    await server.close();
  });

  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, { ...init, headers: { 'x-api-key': KEY, ...init.headers } });

  it('serves the same bodies over real HTTP as handle() does', async () => {
    expect(server.baseUrl).toBe(`http://127.0.0.1:${server.port}/api/v1`);
    for (const path of [
      '/accounts',
      '/accounts/4711/balance',
      '/accounts/5001/holdings',
      '/accounts/4713/transactions?from=2026-05-01&include_pending=true',
    ]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.text()).toBe((await call(twin, path)).text);
    }
    expect(provider.requests.at(-1)).toMatchObject({
      path: '/api/v1/accounts/4713/transactions',
      status: 200,
    });
  });

  it('streams a full history window', async () => {
    const response = await get('/accounts/4711/transactions?include_pending=true');
    const body = (await response.json()) as { transactions: unknown[]; total: number };
    expect(body.total).toBe(provider.countTransactions('4711', { includePending: true }));
    expect(body.transactions).toHaveLength(body.total);
  });

  it('passes auth, status codes and headers through', async () => {
    const missing = await fetch(`${server.baseUrl}/accounts`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: 'Unauthorized' });
    expect((await get('/accounts/5002/holdings')).status).toBe(501);
    const post = await get('/accounts', { method: 'POST', body: '{"x":1}' });
    expect(post.status).toBe(405);
    const h = provider.faults.add({ kind: 'rate-limit', retryAfterSeconds: 3, times: 1 });
    const limited = await get('/accounts');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(h.hits).toBe(1);
  });

  it.each(['api/v1', '/api/v1/', 'api/v1/'])('reads a base path of %j as /api/v1', async (basePath) => {
    const other = await startSandboxServer(provider, { basePath });
    try {
      expect(other.baseUrl).toBe(`http://127.0.0.1:${other.port}/api/v1`);
      expect((await fetch(`${other.baseUrl}/accounts`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('answers 404 outside the base path', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/elsewhere/accounts`, {
      headers: { 'x-api-key': KEY },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'Not Found' });
  });

  it('turns network-error into a destroyed socket', async () => {
    provider.faults.add({ kind: 'network-error', times: 1 });
    await expect(get('/accounts')).rejects.toThrow(TypeError);
    expect((await get('/accounts')).status).toBe(200);
  });

  it('aborts request.signal when the client disconnects', async () => {
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    const hanging = await startSandboxServer({
      handle: (request) =>
        new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => {
            sawAbort();
            reject(request.signal.reason);
          });
        }),
    });
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${hanging.baseUrl}/accounts`);
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 50);
    });
    await aborted;
    await hanging.close();
  });

  it('keeps serving after a client gives up during a latency fault', async () => {
    provider.faults.add({ kind: 'latency', ms: 30_000, times: 1, match: { endpoint: 'balance' } });
    await expect(get('/accounts/4711/balance', { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    expect((await get('/accounts/4711/balance')).status).toBe(200);
  });

  it('honours host, port and basePath, and closes with idle keep-alive sockets', async () => {
    const other = await startSandboxServer(new SandboxProvider(), { basePath: '/v2/' });
    expect(other.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    expect((await fetch(`${other.baseUrl}/accounts`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    await other.close();
    await expect(fetch(`${other.baseUrl}/accounts`)).rejects.toThrow(TypeError);
  });
});

describe('startSandboxServer host', () => {
  it('refuses an empty host, which would listen on every interface', async () => {
    await expect(startSandboxServer(new SandboxProvider(), { host: '' })).rejects.toThrow(
      /host must be a host name or address/,
    );
  });
});
