import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import { call } from './helpers.js';

describe('faults', () => {
  it('status: real default bodies, custom bodies, and endpoint/account/path matching', async () => {
    const p = new SandboxProvider();
    const h500 = p.faults.add({ kind: 'status', status: 500, match: { endpoint: 'transactions' } });
    const r = await call(p, '/accounts/4711/transactions');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({
      error: 'Internal Server Error',
      message: 'An unexpected error occurred while fetching transactions.',
    });
    expect((await call(p, '/accounts/4711/balance')).status).toBe(200);
    expect(h500.hits).toBe(1);
    h500.remove();
    expect((await call(p, '/accounts/4711/transactions')).status).toBe(200);

    p.faults.add({ kind: 'status', status: 401, match: { accountId: 4713 } });
    p.faults.add({
      kind: 'status',
      status: 503,
      body: { error: 'Service Unavailable', message: 'Bank down' },
      match: { path: '/accounts/4711/balance' },
    });
    p.faults.add({ kind: 'status', status: 404, match: { path: /\/5001\/holdings$/ } });
    expect((await call(p, '/accounts/4713/balance')).json).toEqual({
      error: 'Unauthorized',
      message: 'Authentication required. Provide x-api-key header or Authorization: Bearer token.',
    });
    expect((await call(p, '/accounts/4711/balance')).json).toEqual({
      error: 'Service Unavailable',
      message: 'Bank down',
    });
    const notFound = await call(p, '/accounts/5001/holdings');
    expect(notFound.status).toBe(404);
    expect(notFound.json).toEqual({ error: 'Not Found', message: 'Account not found.' });
    expect((await call(p, '/accounts/4712/balance')).status).toBe(200);
    p.faults.clear();
    expect((await call(p, '/accounts/4713/balance')).status).toBe(200);
  });

  it('status 403 fires even with a valid key (revoked key, lapsed subscription)', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'status', status: 403, times: 1 });
    expect((await call(p, '/accounts')).json).toEqual({ error: 'Forbidden', message: 'Invalid API key.' });
    expect((await call(p, '/accounts')).status).toBe(200);
  });

  it('times: fires that many times, then stops', async () => {
    const p = new SandboxProvider();
    const handle = p.faults.add({ kind: 'status', status: 502, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(p, '/accounts')).status);
    expect(statuses).toEqual([502, 502, 200, 200]);
    expect(handle.hits).toBe(2);
    expect(p.faults.active).toBe(0);
  });

  it('probability: roughly that share, reproducible per seed', async () => {
    const run = async (seed: number): Promise<number[]> => {
      const p = new SandboxProvider({ seed });
      p.faults.add({ kind: 'status', status: 503, probability: 0.3 });
      const out: number[] = [];
      for (let i = 0; i < 200; i++) out.push((await call(p, '/accounts')).status);
      return out;
    };
    const first = await run(5);
    const failures = first.filter((s) => s === 503).length;
    expect(failures).toBeGreaterThan(30);
    expect(failures).toBeLessThan(90);
    expect(await run(5)).toEqual(first);
    expect(await run(6)).not.toEqual(first);
  });

  it('rate-limit: 429 with Retry-After and a JSON body', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'rate-limit', retryAfterSeconds: 7 });
    const r = await call(p, '/accounts/4711/transactions');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.json).toEqual({ error: 'Too Many Requests', message: expect.stringContaining('7 seconds') });
    const q = new SandboxProvider();
    q.faults.add({ kind: 'rate-limit' });
    expect((await call(q, '/accounts')).headers.get('retry-after')).toBe('60');
  });

  it('rate-limit-500: the provider’s wrapped upstream 429', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'rate-limit-500', retryAfterSeconds: 42 });
    const r = await call(p, '/accounts/4713/transactions');
    expect(r.status).toBe(500);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.json).toEqual({
      error: 'Internal Server Error',
      message:
        'API request failed for account 4713 (429 - Rate limit exceeded): The rate limit for this resource is 100/minute. Please try again in 42 seconds',
    });
  });

  it('latency: delays, then answers normally', async () => {
    const p = new SandboxProvider();
    const quiet = new SandboxProvider();
    p.faults.add({ kind: 'latency', ms: 60 });
    const started = performance.now();
    const r = await call(p, '/accounts/4711/balance');
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
    expect(r.text).toBe((await call(quiet, '/accounts/4711/balance')).text);
  });

  it('latency: is not terminal, so it combines with a later fault', async () => {
    const p = new SandboxProvider();
    const slow = p.faults.add({ kind: 'latency', ms: 5 });
    p.faults.add({ kind: 'status', status: 504 });
    expect((await call(p, '/accounts')).status).toBe(504);
    expect(slow.hits).toBe(1);
  });

  it('latency: respects request.signal', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'latency', ms: 60_000 });
    const controller = new AbortController();
    const pending = p.handle(
      new Request('https://x.test/api/v1/accounts', {
        headers: { 'x-api-key': 'sandbox-key' },
        signal: controller.signal,
      }),
    );
    setTimeout(() => controller.abort(), 10);
    // An aborted wait answers like a dropped connection instead of throwing from the handler.
    expect((await pending).type).toBe('error');
    expect(p.requests).toEqual([{ method: 'GET', path: '/api/v1/accounts', query: {}, status: 0 }]);
  });

  it('malformed-json: 200 JSON content type, but a truncated body', async () => {
    const p = new SandboxProvider();
    const quiet = new SandboxProvider();
    p.faults.add({ kind: 'malformed-json', match: { endpoint: 'transactions' } });
    for (const path of [
      '/accounts/4711/transactions',
      '/accounts/4711/transactions?from=2026-06-30&to=2026-06-30',
    ]) {
      const r = await call(p, path);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(() => JSON.parse(r.text)).toThrow(SyntaxError);
      expect(r.text.length).toBeGreaterThan(0);
      expect((await call(quiet, path)).text.startsWith(r.text)).toBe(true);
    }
  });

  it('network-error: Response.error()', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'network-error', times: 1 });
    const response = await p.handle(new Request('https://x.test/api/v1/accounts'));
    expect(response.type).toBe('error');
    expect(p.requests[0]?.status).toBe(0);
    expect((await call(p, '/accounts')).status).toBe(200);
  });

  it('faults belong to one provider instance', async () => {
    const a = new SandboxProvider();
    const b = new SandboxProvider();
    a.faults.add({ kind: 'status', status: 500 });
    expect((await call(a, '/accounts')).status).toBe(500);
    expect((await call(b, '/accounts')).status).toBe(200);
  });

  it('rejects nonsensical fault settings', () => {
    const p = new SandboxProvider();
    expect(() => p.faults.add({ kind: 'status', status: 42 })).toThrow(RangeError);
    expect(() => p.faults.add({ kind: 'status', status: 500, probability: 2 })).toThrow(RangeError);
    expect(() => p.faults.add({ kind: 'latency', ms: 1, times: -1 })).toThrow(RangeError);
    // Node's timers fire at once past 2^31 - 1 ms: a "slow" answer would come at once.
    expect(() => p.faults.add({ kind: 'latency', ms: 2 ** 31 })).toThrow(/0\.\.2147483647, or Infinity/);
    expect(() => p.faults.add({ kind: 'latency', ms: Number.NaN })).toThrow(RangeError);
    expect(() => p.faults.add({ kind: 'timeout' } as never)).toThrow(
      /kind must be one of status, rate-limit/,
    );
    expect(() => p.faults.add({ kind: 'rate-limit-500' } as never)).toThrow(/retryAfterSeconds/);
    expect(() => p.faults.add({ kind: 'rate-limit', retryAfterSeconds: -5 })).toThrow(RangeError);
    expect(() => p.faults.add({ kind: 'rate-limit', retryAfterSeconds: Number.NaN })).toThrow(RangeError);
    expect(p.faults.add({ kind: 'rate-limit' }).hits).toBe(0);
  });

  it('latency: Infinity answers only when the request is aborted', async () => {
    const p = new SandboxProvider();
    p.faults.add({ kind: 'latency', ms: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    const pending = p.handle(
      new Request('https://x.test/api/v1/accounts', {
        headers: { 'x-api-key': 'sandbox-key' },
        signal: controller.signal,
      }),
    );
    const early = await Promise.race([pending, new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    expect(early).toBe('waiting');
    controller.abort();
    expect((await pending).type).toBe('error');
  });
});
