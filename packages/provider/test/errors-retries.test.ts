import { delay, http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { stalledAnswerFetch, useMswServer } from '@finsync/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  ProviderAPIError,
  ProviderClient,
  ProviderError,
  RateLimitError,
  RequestAbortedError,
  ServerError,
  TimeoutError,
  type ProviderClientOptions,
} from '../src/index.js';
import { BASE, KEY } from './helpers.js';

const server = useMswServer();
const client = (options: Partial<ProviderClientOptions> = {}) =>
  new ProviderClient({ apiKey: KEY, rateLimit: false, ...options });

/** Serves `responses` in order (the last one repeats) and counts the requests. */
function sequence(path: string, responses: Array<() => Response>) {
  const state = { calls: 0 };
  server.use(
    http.get(`${BASE}${path}`, () => {
      const next = responses[Math.min(state.calls, responses.length - 1)]!;
      state.calls += 1;
      return next();
    }),
  );
  return state;
}

const ok = () => HttpResponse.json({ accounts: [], total: 0 });
const status =
  (code: number, body: object = { error: 'x', message: 'y' }, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json(body, { status: code, headers });

afterEach(() => {
  vi.useRealTimers();
});

describe('status codes map to one error hierarchy', () => {
  it.each([
    [
      401,
      AuthenticationError,
      { error: 'Unauthorized', message: 'Authentication required. Provide x-api-key header.' },
    ],
    [403, PermissionDeniedError, { error: 'Forbidden', message: 'Invalid API key.' }],
    [404, NotFoundError, { error: 'Not Found', message: 'Account not found.' }],
    [400, ProviderAPIError, { error: 'Bad Request', message: 'bad from' }],
  ])('%i → %o, not retried', async (code, type, body) => {
    const calls = sequence('/accounts', [status(code, body)]);
    const error = (await client()
      .listAccounts()
      .catch((e: unknown) => e)) as ProviderAPIError;
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(code);
    expect(error.path).toBe('/accounts');
    expect(error.code).toBe(body.error);
    expect(error.bodyExcerpt).toContain(body.message);
    expect(error.message).toContain(body.message);
    expect(calls.calls).toBe(1);
  });

  it('keeps the key out of every error, even when the body echoes it', async () => {
    sequence('/accounts', [status(403, { error: 'Forbidden', message: `Invalid API key ${KEY}` })]);
    const error = (await client()
      .listAccounts()
      .catch((e: unknown) => e)) as Error;
    const serialized = [
      JSON.stringify(error),
      inspect(error, { showHidden: true, depth: 20 }),
      error.stack,
      error.message,
    ].join('\n');
    expect(serialized).not.toContain(KEY);
    expect(serialized).toContain('[REDACTED]');
  });
});

describe('retries', () => {
  it('retries 5xx with backoff and succeeds', async () => {
    const calls = sequence('/accounts', [status(503), status(502), ok]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client().listAccounts();
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toEqual([]);
    expect(calls.calls).toBe(3);
  });

  it('gives up after maxRetries with a ServerError that counts the retries', async () => {
    const calls = sequence('/accounts', [
      status(500, { error: 'Internal Server Error', message: 'An unexpected error occurred' }),
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client({ maxRetries: 3 })
      .listAccounts()
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30_000);
    const error = (await result) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.retries).toBe(3);
    expect(calls.calls).toBe(4);
  });

  it('counts a retry after a lost connection and one after a 5xx against the same maxRetries', async () => {
    const calls = sequence('/accounts', [() => HttpResponse.error(), status(503), status(502), ok]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client({ maxRetries: 2 })
      .listAccounts()
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30_000);
    const error = (await result) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(502);
    expect(error.retries).toBe(2);
    expect(calls.calls).toBe(3);
  });

  it('waits out a Retry-After within the cap before retrying', async () => {
    const calls = sequence('/accounts', [
      status(429, { error: 'Too Many Requests' }, { 'Retry-After': '20' }),
      ok,
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client().listAccounts();
    await vi.advanceTimersByTimeAsync(19_000);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1_500);
    await expect(result).resolves.toEqual([]);
    expect(calls.calls).toBe(2);
  });

  it("waits out a 503's Retry-After too, as the README says, not its own shorter backoff", async () => {
    const calls = sequence('/accounts', [status(503, { error: 'maintenance' }, { 'Retry-After': '4' }), ok]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client().listAccounts();
    // The first backoff would have been 0.375-0.5 s.
    await vi.advanceTimersByTimeAsync(3_500);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(result).resolves.toEqual([]);
    expect(calls.calls).toBe(2);
  });

  it('retries a 5xx whose Retry-After is past the cap, or 0, on its own backoff, as before', async () => {
    for (const wait of ['600', '0']) {
      const calls = sequence('/accounts', [
        status(503, { error: 'maintenance' }, { 'Retry-After': wait }),
        ok,
      ]);
      vi.useFakeTimers({ toFake: ['setTimeout'] });
      const result = client().listAccounts();
      await vi.advanceTimersByTimeAsync(300);
      expect(calls.calls, wait).toBe(1);
      await vi.advanceTimersByTimeAsync(300);
      await expect(result).resolves.toEqual([]);
      expect(calls.calls, wait).toBe(2);
      vi.useRealTimers();
    }
  });

  it('hands a Retry-After beyond the cap to the caller at once', async () => {
    const calls = sequence('/accounts', [
      status(429, { error: 'Too Many Requests' }, { 'Retry-After': '600' }),
    ]);
    const error = (await client({ maxRetryAfterMs: 30_000 })
      .listAccounts()
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(600_000);
    expect(calls.calls).toBe(1);
  });

  it('reads the rate limit the provider wraps in a 500, with the wait from its text', async () => {
    const body = {
      error: 'Internal Server Error',
      message:
        'API request failed for account 4711 (429 - Rate limit exceeded): The rate limit for this resource is 100/minute. Please try again in 37 seconds',
    };
    const calls = sequence('/accounts/4711/balance', [
      status(500, body),
      () => HttpResponse.json({ balance: { amount: 1, currency: 'GBP' } }),
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client().getBalance(4711);
    await vi.advanceTimersByTimeAsync(36_000);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(result).resolves.toMatchObject({ amount: '1' });

    const capped = sequence('/accounts/4711/balance', [status(500, body)]);
    vi.useRealTimers();
    const error = (await client({ maxRetryAfterMs: 5_000 })
      .getBalance(4711)
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.status).toBe(500);
    expect(error.retryAfterMs).toBe(37_000);
    expect(capped.calls).toBe(1);
  });

  it('takes a 429 in a 5xx for a rate limit only as a status, not as the account named beside it', async () => {
    const failed = (text: string) => ({ error: 'Internal Server Error', message: text });
    const answers: Array<[string, string]> = [
      ['API request failed for account 429 (502 - Bad Gateway): upstream unavailable', 'ServerError'],
      ['API request failed for account 4711 (500 - Internal Server Error): sum 429 failed', 'ServerError'],
      ['API request failed for account 429 (429 - Rate limit exceeded): Please try again', 'RateLimitError'],
      ['upstream answered status 429', 'RateLimitError'],
      ['upstream: HTTP 429', 'RateLimitError'],
      ['upstream returned error 429: quota exceeded', 'RateLimitError'],
      ['{"upstream":{"status_code":429}}', 'RateLimitError'],
      ['{"statusCode":429,"error":"Quota exceeded"}', 'RateLimitError'],
      ['Too many requests', 'RateLimitError'],
    ];
    for (const [text, expected] of answers) {
      sequence('/accounts/429/balance', [status(502, failed(text))]);
      const error = await client({ maxRetries: 0 })
        .getBalance(429)
        .catch((e: unknown) => e);
      expect((error as Error).name, text).toBe(expected);
    }
  });

  it('retries network errors, then throws ConnectionError', async () => {
    const calls = sequence('/accounts', [() => HttpResponse.error()]);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client({ maxRetries: 1 })
      .listAccounts()
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await result;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(ProviderAPIError);
    expect(calls.calls).toBe(2);
  });

  it('throws TimeoutError when no response arrives in time, after retrying', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/accounts`, async () => {
        calls += 1;
        await delay(1_000);
        return ok();
      }),
    );
    const error = (await client({ timeoutMs: 30, maxRetries: 1 })
      .listAccounts()
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.timeoutMs).toBe(30);
    expect(calls).toBe(2);
  });

  it('an error answer whose body never ends is a TimeoutError too, not a call that hangs', async () => {
    const stalled503 = stalledAnswerFetch(503);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m) };
    const error = (await client({ timeoutMs: 50, maxRetries: 1, logger, fetch: stalled503.fetch })
      .listAccounts()
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeoutMs).toBe(50);
    expect(stalled503.calls()).toBe(2);
    // The retry is the timeout's, not one judged from a 503 whose body never came.
    expect(warnings).not.toContain('provider request failed; retrying');
  });
});

describe('a body cut off after its headers', () => {
  const encoder = new TextEncoder();
  /** A 200 whose body starts and then stops arriving. */
  const stalled = () =>
    new HttpResponse(
      new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encoder.encode('{"accounts":[')) }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  /** A 200 whose connection breaks after the first bytes. */
  const broken = () =>
    new HttpResponse(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(encoder.encode('{"accounts":['));
          setTimeout(() => c.error(new TypeError('terminated')), 20);
        },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );

  it('is asked for again, and the call answers', async () => {
    const calls = sequence('/accounts', [stalled, broken, ok]);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m) };
    await expect(client({ timeoutMs: 100, maxRetries: 2, logger }).listAccounts()).resolves.toEqual([]);
    expect(calls.calls).toBe(3);
    expect(warnings.filter((m) => m.includes('cut off'))).toHaveLength(2);
  });

  it('shares maxRetries with the retries before it: a 503 and a cut-off body use up one retry each', async () => {
    const calls = sequence('/accounts', [status(503), stalled]);
    const error = (await client({ timeoutMs: 100, maxRetries: 2 })
      .listAccounts()
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(calls.calls).toBe(3);
  });

  it('is not asked for again with maxRetries 0', async () => {
    const calls = sequence('/accounts', [broken, ok]);
    const error = await client({ timeoutMs: 100, maxRetries: 0 })
      .listAccounts()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls.calls).toBe(1);
  });
});

describe('cancellation', () => {
  it("is heard while an error answer's body arrives, with a fetch whose body is not tied to the signal (msw)", async () => {
    server.use(
      http.get(
        `${BASE}/accounts`,
        () =>
          new HttpResponse(
            new ReadableStream<Uint8Array>({
              start: (c) => c.enqueue(new TextEncoder().encode('{"error":"Service')),
            }),
            { status: 500, headers: { 'content-type': 'application/json' } },
          ),
      ),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await client({ timeoutMs: 10_000, maxRetries: 0 })
      .listAccounts({ signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('aborts an in-flight call with RequestAbortedError and does not retry it', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/accounts`, async () => {
        calls += 1;
        await delay(5_000);
        return ok();
      }),
    );
    const controller = new AbortController();
    const result = client()
      .listAccounts({ signal: controller.signal })
      .catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('user navigated away')), 20);
    const error = await result;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).not.toBeInstanceOf(ProviderAPIError);
    expect(calls).toBe(1);
  });

  it('aborts during a retry wait', async () => {
    const calls = sequence('/accounts', [status(503)]);
    const controller = new AbortController();
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client({ maxRetries: 5 })
      .listAccounts({ signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await expect(result).resolves.toBeInstanceOf(RequestAbortedError);
    expect(calls.calls).toBe(1);
  });

  it('refuses to start with an already aborted signal', async () => {
    const calls = sequence('/accounts', [ok]);
    await expect(client().listAccounts({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      RequestAbortedError,
    );
    expect(calls.calls).toBe(0);
  });
});

describe('client-side throttle', () => {
  it('holds calls beyond the limit until the interval has passed, shared by all calls of a client', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/accounts`, () => {
        calls += 1;
        return ok();
      }),
      http.get(`${BASE}/accounts/:id/balance`, () => {
        calls += 1;
        return HttpResponse.json({ balance: { amount: 0, currency: 'GBP' } });
      }),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const c = client({ rateLimit: { limit: 2, intervalMs: 60_000 } });
    const all = Promise.all([c.listAccounts(), c.getBalance(1), c.listAccounts(), c.getBalance(2)]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(58_000);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(200_000);
    await all;
    expect(calls).toBe(4);
  });
});

describe('the rate limit and cancelled calls', () => {
  it('a call aborted while it waits for a slot gives its slot to the next call', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/accounts`, () => {
        calls += 1;
        return ok();
      }),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const c = client({ rateLimit: { limit: 1, intervalMs: 1_000 } });
    await c.listAccounts();
    const cancelled = [1, 2, 3].map(() => {
      const controller = new AbortController();
      const call = c.listAccounts({ signal: controller.signal }).catch((e: unknown) => (e as Error).name);
      controller.abort();
      return call;
    });
    expect(await Promise.all(cancelled)).toEqual([
      'RequestAbortedError',
      'RequestAbortedError',
      'RequestAbortedError',
    ]);
    const next = c.listAccounts();
    // The next slot is a second after the first call: the three cancelled ones kept theirs, and it
    // waited four.
    await vi.advanceTimersByTimeAsync(1_100);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(5_000);
    await next;
  });
});

describe('redirects', () => {
  it('follows the bare host to www, keeping the key within the host family', async () => {
    const keys: Array<string | null> = [];
    server.use(
      http.get('https://lunchflow.app/api/v1/accounts', () =>
        HttpResponse.json(
          { redirect: true },
          { status: 308, headers: { Location: 'https://www.lunchflow.app/api/v1/accounts' } },
        ),
      ),
      http.get(`${BASE}/accounts`, ({ request }) => {
        keys.push(request.headers.get('x-api-key'));
        return ok();
      }),
    );
    await expect(client({ baseUrl: 'https://lunchflow.app/api/v1' }).listAccounts()).resolves.toEqual([]);
    expect(keys).toEqual([KEY]);
  });

  it('refuses a redirect to another host and names the location', async () => {
    let leaked = false;
    server.use(
      http.get(`${BASE}/accounts`, () =>
        HttpResponse.json({}, { status: 302, headers: { Location: 'https://evil.example/collect' } }),
      ),
      http.get('https://evil.example/collect', () => {
        leaked = true;
        return ok();
      }),
    );
    const error = (await client()
      .listAccounts()
      .catch((e: unknown) => e)) as Error;
    expect(error.name).toBe('RedirectError');
    expect(error.message).toContain('https://evil.example/collect');
    expect(leaked).toBe(false);
  });

  it('reports a redirect with an unusable Location as the 3xx it is, once, not as a failed connection', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/accounts`, () => {
        hits += 1;
        return HttpResponse.json({}, { status: 308, headers: { Location: 'http://[bad' } });
      }),
    );
    const error = (await client({ maxRetries: 2 })
      .listAccounts()
      .catch((e: unknown) => e)) as Error & { status?: number };
    expect(error.name).toBe('ProviderAPIError');
    expect(error.status).toBe(308);
    expect(hits).toBe(1);
  });
});

describe('logging', () => {
  it('masks a key a redirect within the host carries in its path, in the log line too', async () => {
    server.use(
      http.get(`${BASE}/accounts`, () =>
        HttpResponse.json({}, { status: 307, headers: { Location: `${BASE}/moved/${KEY}/accounts` } }),
      ),
      http.get(`${BASE}/moved/:key/accounts`, () => ok()),
    );
    const lines: string[] = [];
    const info = (m: string, f?: object) => lines.push(`${m} ${JSON.stringify(f)}`);
    await expect(client({ logger: { info } }).listAccounts()).resolves.toEqual([]);
    expect(lines.find((l) => l.includes('redirected'))).toContain('/moved/[REDACTED]/accounts');
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('logs requests and retries without headers or the key', async () => {
    sequence('/accounts', [status(503), ok]);
    const lines: string[] = [];
    const logger = {
      debug: (m: string, f?: object) => lines.push(`${m} ${JSON.stringify(f)}`),
      info: (m: string, f?: object) => lines.push(`${m} ${JSON.stringify(f)}`),
      warn: (m: string, f?: object) => lines.push(`${m} ${JSON.stringify(f)}`),
    };
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const result = client({ logger }).listAccounts();
    await vi.advanceTimersByTimeAsync(5_000);
    await result;
    expect(lines.some((l) => l.includes('retrying') && l.includes('"status":503'))).toBe(true);
    expect(lines.some((l) => l.includes('"status":200'))).toBe(true);
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n').toLowerCase()).not.toContain('x-api-key');
  });
});
