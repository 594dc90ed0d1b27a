import { delay, http, HttpResponse, type JsonBodyType } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  ServerError,
  ServiceAPIError,
  ServiceClient,
  ServiceError,
  TimeoutError,
  ValidationError,
  type ServiceClientOptions,
} from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const client = (options: Partial<ServiceClientOptions> = {}) =>
  new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0, ...options });

function answer(status: number, body: JsonBodyType, headers: Record<string, string> = {}) {
  const calls = { count: 0 };
  server.use(
    http.all(`${API}/transactions/:id`, () => {
      calls.count += 1;
      return HttpResponse.json(body, { status, headers });
    }),
  );
  return calls;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('status codes map to one error hierarchy', () => {
  it.each([
    [
      401,
      AuthenticationError,
      { error: 'unauthorized', message: 'Access token or API key is invalid, expired, or missing' },
    ],
    [
      403,
      PermissionDeniedError,
      { error: 'insufficient_scope', message: "This action requires the 'write' scope" },
    ],
    [404, NotFoundError, { error: 'not_found', message: 'Transaction not found' }],
    [500, ServerError, { error: 'internal_server_error', message: 'An unexpected error occurred' }],
    [502, ServerError, { error: 'bad_gateway', message: 'upstream down' }],
    [400, ServiceAPIError, { error: 'bad_request', message: 'Required parameters are missing or invalid' }],
  ])('%i → %o with status, code, message, method and path', async (status, type, body) => {
    answer(status, body, { 'x-request-id': 'req-123' });
    const error = (await settle(client().transactions.get(TX_ID))) as ServiceAPIError;
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ServiceAPIError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(body.error);
    expect(error.serverMessage).toBe(body.message);
    expect(error.message).toContain(body.message);
    expect(error.message).toContain(`GET /api/v1/transactions/${TX_ID}`);
    expect(error.method).toBe('GET');
    expect(error.path).toBe(`/api/v1/transactions/${TX_ID}`);
    expect(error.requestId).toBe('req-123');
    expect(error.errors).toEqual([]);
  });

  it('422 → ValidationError exposing the errors list', async () => {
    answer(422, {
      error: 'validation_failed',
      message: 'Transaction could not be updated',
      errors: ["Name can't be blank", "Date can't be blank"],
    });
    const error = (await settle(client().transactions.update(TX_ID, { notes: 'x' }))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.errors).toEqual(["Name can't be blank", "Date can't be blank"]);
    expect(error.message).toContain("Name can't be blank");
    expect(error.method).toBe('PATCH');
  });

  it('422 without an errors key (split editor) still is a ValidationError', async () => {
    answer(422, {
      error: 'validation_failed',
      message: 'Split child transactions cannot be edited directly. Use the split editor.',
    });
    const error = (await settle(client().transactions.update(TX_ID, { notes: 'x' }))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual([]);
    expect(error.serverMessage).toContain('split editor');
  });

  it('an error body that is not JSON still gives a typed error with an excerpt', async () => {
    server.use(
      http.get(`${API}/transactions/:id`, () => new HttpResponse('<h1>Bad gateway</h1>', { status: 502 })),
    );
    const error = (await settle(client().transactions.get(TX_ID))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBeUndefined();
    expect(error.bodyExcerpt).toContain('Bad gateway');
  });
});

describe('RateLimitError.retryAfterMs, from each source', () => {
  const body = {
    error: 'rate_limit_exceeded',
    message: 'Rate limit exceeded. Try again in 1834 seconds.',
    details: { limit: 100, current: 100, reset_in_seconds: 1700 },
  };

  it('Retry-After seconds first', async () => {
    answer(429, body, { 'Retry-After': '12', 'X-RateLimit-Reset': '99' });
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(12_000);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.details).toEqual({ limit: 100, current: 100, reset_in_seconds: 1700 });
  });

  it('Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    answer(429, body, { 'Retry-After': at });
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('then X-RateLimit-Reset (seconds, not an epoch)', async () => {
    answer(429, body, {
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '99',
    });
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error.retryAfterMs).toBe(99_000);
    expect(error.rateLimit).toMatchObject({ limit: 100, remaining: 0, resetSeconds: 99 });
  });

  it('then details.reset_in_seconds', async () => {
    answer(429, body);
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error.retryAfterMs).toBe(1_700_000);
  });

  it('then "Try again in N seconds" in the message', async () => {
    answer(429, { error: 'rate_limit_exceeded', message: 'Rate limit exceeded. Try again in 1834 seconds.' });
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error.retryAfterMs).toBe(1_834_000);
  });

  it('undefined when nothing says (Rack::Attack body without headers)', async () => {
    answer(429, { error: 'Rate limit exceeded. Try again later.' });
    const error = (await settle(client().transactions.get(TX_ID))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBeUndefined();
  });
});

describe('errors without a response', () => {
  it('a network error → ConnectionError (not an API error)', async () => {
    server.use(http.get(`${API}/transactions/:id`, () => HttpResponse.error()));
    const error = (await settle(client().transactions.get(TX_ID))) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(ServiceAPIError);
    expect(error.message).toContain(`GET /api/v1/transactions/${TX_ID} failed to connect`);
  });

  it('no answer within timeoutMs → TimeoutError (a ConnectionError)', async () => {
    server.use(
      http.get(`${API}/transactions/:id`, async () => {
        await delay('infinite');
        return HttpResponse.json(wireTransaction());
      }),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const result = settle(client({ timeoutMs: 5_000 }).transactions.get(TX_ID));
    await vi.advanceTimersByTimeAsync(5_001);
    const error = (await result) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.timeoutMs).toBe(5_000);
  });

  it('the caller aborting → RequestAbortedError, with the reason as cause', async () => {
    server.use(
      http.get(`${API}/transactions/:id`, async () => {
        await delay('infinite');
        return HttpResponse.json(wireTransaction());
      }),
    );
    const controller = new AbortController();
    const result = settle(client({ maxRetries: 2 }).transactions.get(TX_ID, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('user gave up')), 10);
    const error = (await result) as RequestAbortedError;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).not.toBeInstanceOf(ServiceAPIError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect((error.cause as Error).message).toBe('user gave up');
  });

  it('an already aborted signal → RequestAbortedError and nothing sent', async () => {
    const calls = answer(200, wireTransaction());
    const error = await settle(client().transactions.get(TX_ID, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(calls.count).toBe(0);
  });
});

describe('InvalidResponseError', () => {
  it('names the path of the bad field', async () => {
    answer(200, wireTransaction({ amount_cents: '4210', account: { id: 'a', name: 'x' } }));
    const error = (await settle(client().transactions.get(TX_ID))) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['amount_cents', 'account.account_type']),
    );
    expect(error.message).toMatch(/amount_cents|account\.account_type/);
    expect(error.status).toBe(200);
  });

  it('names the index of a bad row in a page', async () => {
    server.use(
      http.get(`${API}/transactions`, () =>
        HttpResponse.json({
          transactions: [wireTransaction(), wireTransaction({ date: null })],
          pagination: { page: 1, per_page: 25, total_count: 2, total_pages: 1 },
        }),
      ),
    );
    const error = (await settle(client().transactions.list().firstPage())) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('transactions[1].date');
  });

  it('a 2xx body that is not JSON', async () => {
    server.use(
      http.get(`${API}/transactions/:id`, () => new HttpResponse('<html>login</html>', { status: 200 })),
    );
    const error = (await settle(client().transactions.get(TX_ID))) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.message).toContain('not JSON');
  });
});
