import { delay, http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { useMswServer } from '@finsync/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServiceClient, readRateLimit, type ServiceLogger } from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();

function recordingLogger() {
  const lines: unknown[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push([level, message, fields]);
  const logger: ServiceLogger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
  return { logger, lines };
}

function everything(value: unknown): string {
  return [
    JSON.stringify(value),
    inspect(value, { showHidden: true, depth: 20 }),
    value instanceof Error ? `${value.stack}\n${value.message}\n${String(value.cause)}` : String(value),
  ].join('\n');
}

afterEach(() => vi.useRealTimers());

describe('the API key', () => {
  it('is sent as X-Api-Key', async () => {
    let seen: string | null = null;
    server.use(
      http.get(`${API}/transactions/:id`, ({ request }) => {
        seen = request.headers.get('x-api-key');
        return HttpResponse.json(wireTransaction());
      }),
    );
    await new ServiceClient({ baseUrl: BASE, apiKey: KEY }).transactions.get(TX_ID);
    expect(seen).toBe(KEY);
  });

  it('never shows in inspect or JSON of the client or its resource', () => {
    const client = new ServiceClient({ baseUrl: BASE, apiKey: KEY });
    const resources = [
      client.transactions,
      client.accounts,
      client.categories,
      client.merchants,
      client.tags,
    ];
    for (const value of [client, ...resources]) expect(everything(value)).not.toContain(KEY);
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: BASE });
    expect(inspect(client)).toBe(`ServiceClient { baseUrl: '${BASE}' }`);
    expect(Object.keys(client)).not.toContain('apiKey');
  });

  it('never shows in errors or logs, even when a body echoes it', async () => {
    const { logger, lines } = recordingLogger();
    const client = new ServiceClient({ baseUrl: BASE, apiKey: KEY, logger, maxRetries: 1 });
    server.use(
      http.get(`${API}/transactions/:id`, () =>
        HttpResponse.json(
          {
            error: 'unauthorized',
            message: `API key ${KEY} is revoked`,
            errors: [`key ${KEY}`],
            details: { api_key: KEY, tried: [{ key: KEY }] },
          },
          { status: 401 },
        ),
      ),
      http.patch(`${API}/transactions/:id`, () =>
        HttpResponse.json({ error: 'bad_gateway' }, { status: 502 }),
      ),
    );
    const errors = [
      await settle(client.transactions.get(TX_ID)),
      await settle(client.transactions.update(TX_ID, { notes: 'x' })),
    ];
    server.use(http.get(`${API}/transactions`, () => HttpResponse.error()));
    errors.push(await settle(client.transactions.list().firstPage()));
    server.use(
      http.get(`${API}/transactions/:id`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const timedOut = settle(
      new ServiceClient({ baseUrl: BASE, apiKey: KEY, timeoutMs: 100, maxRetries: 0 }).transactions.get(
        TX_ID,
      ),
    );
    await vi.advanceTimersByTimeAsync(200);
    errors.push(await timedOut);

    expect(errors.map((e) => (e as Error).name)).toEqual([
      'AuthenticationError',
      'ServerError',
      'ConnectionError',
      'TimeoutError',
    ]);
    for (const error of errors) expect(everything(error)).not.toContain(KEY);
    expect(everything(errors[0])).toContain('[REDACTED]');
    expect(lines.length).toBeGreaterThan(0);
    expect(everything(lines)).not.toContain(KEY);
  });

  it('is masked in requestId when the X-Request-Id header echoes it', async () => {
    const client = new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });
    const errors: unknown[] = [];
    for (const status of [400, 401, 404, 422, 429, 500]) {
      server.use(
        http.get(`${API}/transactions/:id`, () =>
          HttpResponse.json(
            { error: 'x', message: 'y' },
            { status, headers: { 'x-request-id': `req-${KEY}-1` } },
          ),
        ),
      );
      errors.push(await settle(client.transactions.get(TX_ID)));
    }
    for (const error of errors) {
      expect((error as { requestId?: string }).requestId).toBe('req-[REDACTED]-1');
      expect(everything(error)).not.toContain(KEY);
    }
  });

  it("never shows in an error whose cause kept it somewhere else than its message (a custom fetch's own error)", async () => {
    for (const kept of [
      (r: Request) => Object.fromEntries(r.headers), // a plain object
      (r: Request) => new Headers(r.headers), // entries, not own properties
      (r: Request) => ({ sent: [{ headers: new Map(r.headers) }] }), // deeper, in a Map
    ]) {
      const client = new ServiceClient({
        baseUrl: BASE,
        apiKey: KEY,
        maxRetries: 0,
        fetch: (async (request: Request) => {
          throw Object.assign(new Error('proxy refused'), { sentHeaders: kept(request) });
        }) as typeof fetch,
      });
      const error = await client.transactions.get(TX_ID).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(everything(error)).not.toContain(KEY);
      expect((error as Error).message).toContain('proxy refused');
    }
  });

  it('a bad key or base URL is refused without echoing the key', () => {
    expect(() => new ServiceClient({ baseUrl: BASE, apiKey: '' })).toThrow(TypeError);
    expect(() => new ServiceClient({ baseUrl: BASE, apiKey: `${KEY}”` })).toThrow(/no HTTP header can carry/);
    let message = '';
    try {
      new ServiceClient({ baseUrl: BASE, apiKey: `${KEY}\n` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('apiKey');
    expect(message).not.toContain(KEY);
    expect(() => new ServiceClient({ baseUrl: 'localhost:3000/x', apiKey: KEY })).toThrow(TypeError);
    expect(() => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: -1 })).toThrow(RangeError);
  });

  it('baseUrl is the service root; a trailing /api/v1 or slash is dropped', () => {
    expect(new ServiceClient({ baseUrl: `${BASE}/`, apiKey: KEY }).baseUrl).toBe(BASE);
    expect(new ServiceClient({ baseUrl: `${BASE}/api/v1/`, apiKey: KEY }).baseUrl).toBe(BASE);
  });
});

describe('rate-limit headers', () => {
  it('client.rateLimit is the last snapshot seen, success or error', async () => {
    const client = new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });
    expect(client.rateLimit).toBeUndefined();
    server.use(
      http.get(`${API}/transactions/:id`, () =>
        HttpResponse.json(wireTransaction(), {
          headers: { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '1834' },
        }),
      ),
    );
    await client.transactions.get(TX_ID);
    expect(client.rateLimit).toMatchObject({ limit: 100, remaining: 99, resetSeconds: 1834 });
    server.use(
      http.get(`${API}/transactions/:id`, () =>
        HttpResponse.json(
          { error: 'not_found' },
          {
            status: 404,
            headers: {
              'X-RateLimit-Limit': '100',
              'X-RateLimit-Remaining': '98',
              'X-RateLimit-Reset': '1833',
            },
          },
        ),
      ),
    );
    await settle(client.transactions.get(TX_ID));
    expect(client.rateLimit?.remaining).toBe(98);
  });

  it('a self-hosted service sends Infinity', () => {
    const headers = new Headers({
      'X-RateLimit-Limit': 'Infinity',
      'X-RateLimit-Remaining': 'Infinity',
      'X-RateLimit-Reset': '0',
    });
    expect(readRateLimit(headers, 5)).toEqual({
      limit: Number.POSITIVE_INFINITY,
      remaining: Number.POSITIVE_INFINITY,
      resetSeconds: 0,
      observedAt: 5,
    });
    expect(readRateLimit(new Headers())).toBeUndefined();
  });
});
