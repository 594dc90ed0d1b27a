import { delay, http, HttpResponse } from 'msw';
import { stalledAnswerFetch, useMswServer } from '@finsync/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  RateLimitError,
  ServerError,
  ServiceAPIError,
  ServiceClient,
  TimeoutError,
  ValidationError,
  type ServiceClientOptions,
} from '../src/index.js';
import { backoffDelay, isRetryableStatus, parseRetryAfterHeader, retryClassOf } from '../src/retry.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const client = (options: Partial<ServiceClientOptions> = {}) =>
  new ServiceClient({ baseUrl: BASE, apiKey: KEY, ...options });

type Step = () => Response | Promise<Response>;
const status =
  (code: number, headers: Record<string, string> = {}, body: object = { error: 'x', message: 'y' }): Step =>
  () =>
    HttpResponse.json(body, { status: code, headers });
const ok: Step = () => HttpResponse.json(wireTransaction());
const networkError: Step = () => HttpResponse.error();
const hang: Step = async () => {
  await delay('infinite');
  return HttpResponse.json(wireTransaction());
};

/** Serves `steps` in order (the last one repeats) for `method` on the item path; counts requests. */
function sequence(
  method: 'get' | 'patch' | 'put' | 'post' | 'delete',
  steps: Step[],
  path = `/transactions/:id`,
) {
  const state = { calls: 0 };
  server.use(
    http[method](`${API}${path}`, () => {
      const next = steps[Math.min(state.calls, steps.length - 1)]!;
      state.calls += 1;
      return next();
    }),
  );
  return state;
}

/** Runs `call` under fake timers, moving the clock far enough for every backoff. */
async function run<T>(call: () => Promise<T>, advanceMs = 60_000): Promise<T | unknown> {
  const result = settle(call());
  await vi.advanceTimersByTimeAsync(advanceMs);
  return result;
}

beforeEach(() => {
  // clearTimeout too: with only setTimeout faked, ky's cleared per-attempt timeout timer still fires later
  // and aborts the next attempt.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the policy table', () => {
  it('classifies methods and statuses', () => {
    expect(retryClassOf('get')).toBe('read');
    expect(retryClassOf('PATCH')).toBe('overwrite');
    expect(retryClassOf('PUT')).toBe('overwrite');
    expect(retryClassOf('POST')).toBe('once');
    expect(retryClassOf('DELETE')).toBe('once');
    expect([408, 429, 500, 502, 503, 504].every((s) => isRetryableStatus('read', s))).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some((s) => isRetryableStatus('read', s))).toBe(false);
    expect([429, 502, 503, 504].every((s) => isRetryableStatus('overwrite', s))).toBe(true);
    expect([408, 409, 422, 500, 501].some((s) => isRetryableStatus('overwrite', s))).toBe(false);
    expect(isRetryableStatus('once', 429)).toBe(true);
    expect(isRetryableStatus('once', 503)).toBe(false);
  });

  it('backs off 0.5 s, 1 s, 2 s … up to 8 s with 0.75–1 jitter', () => {
    expect(backoffDelay(1, () => 1)).toBe(500);
    expect(backoffDelay(1, () => 0)).toBe(375);
    expect(backoffDelay(3, () => 1)).toBe(2_000);
    expect(backoffDelay(10, () => 1)).toBe(8_000);
    expect(parseRetryAfterHeader('7')).toBe(7_000);
    expect(parseRetryAfterHeader('soon')).toBeUndefined();
  });
});

describe('GET', () => {
  it.each([
    ['a network error', networkError],
    ['408', status(408)],
    ['429 without Retry-After', status(429)],
    ['500', status(500)],
    ['502', status(502)],
    ['503', status(503)],
    ['504', status(504)],
  ])('retries %s and succeeds', async (_name, failure) => {
    const calls = sequence('get', [failure, failure, ok]);
    const result = await run(() => client().transactions.get(TX_ID));
    expect(result).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(3);
  });

  it('counts a retry after a lost connection and one after a 5xx against the same maxRetries', async () => {
    const calls = sequence('get', [networkError, status(503), status(502), ok]);
    const error = (await run(() => client({ maxRetries: 2 }).transactions.get(TX_ID))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(502);
    expect(error.retries).toBe(2);
    expect(calls.calls).toBe(3);
  });

  it('an error answer whose body never ends is a TimeoutError after the retries, not a call that hangs', async () => {
    const stalled503 = stalledAnswerFetch(503);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m) };
    const error = (await run(() =>
      client({ timeoutMs: 1_000, maxRetries: 1, logger, fetch: stalled503.fetch }).transactions.get(TX_ID),
    )) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(stalled503.calls()).toBe(2);
    // The retry is the timeout's, not one judged from a 503 whose body never came.
    expect(warnings).toEqual(['service request failed without a response; retrying']);
  });

  it('retries a timeout', async () => {
    const calls = sequence('get', [hang, ok]);
    const result = await run(() => client({ timeoutMs: 1_000 }).transactions.get(TX_ID));
    expect(result).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(2);
  });

  it('gives up after maxRetries with the last error, counting the retries', async () => {
    const calls = sequence('get', [status(500)]);
    const error = (await run(() => client({ maxRetries: 3 }).transactions.get(TX_ID))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.retries).toBe(3);
    expect(calls.calls).toBe(4);
  });

  it('gives up on timeouts with a TimeoutError', async () => {
    const calls = sequence('get', [hang]);
    const error = await run(() => client({ timeoutMs: 1_000, maxRetries: 1 }).transactions.get(TX_ID));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(calls.calls).toBe(2);
  });

  it.each([400, 401, 403, 404, 422])('does not retry %i', async (code) => {
    const calls = sequence('get', [status(code), ok]);
    const error = await run(() => client().transactions.get(TX_ID));
    expect(error).toBeInstanceOf(ServiceAPIError);
    expect(calls.calls).toBe(1);
  });

  it('waits out Retry-After (not less) before retrying', async () => {
    const calls = sequence('get', [status(429, { 'Retry-After': '20' }), ok]);
    const result = settle(client().transactions.get(TX_ID));
    await vi.advanceTimersByTimeAsync(19_900);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await result).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(2);
  });

  it('honours Retry-After on a 503 as well', async () => {
    const calls = sequence('get', [status(503, { 'Retry-After': '15' }), ok]);
    const result = settle(client().transactions.get(TX_ID));
    await vi.advanceTimersByTimeAsync(14_000);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(await result).toMatchObject({ id: TX_ID });
  });

  it('retries a 503 asking for more than maxRetryAfterMs on its own backoff, as any 5xx', async () => {
    const calls = sequence('get', [status(503, { 'Retry-After': '120' }), ok]);
    const result = settle(client().transactions.get(TX_ID));
    // The first backoff is at most 0.5 s; the two minutes asked for are not slept through.
    await vi.advanceTimersByTimeAsync(600);
    expect(calls.calls).toBe(2);
    expect(await result).toMatchObject({ id: TX_ID });
  });

  it('throws RateLimitError at once when the asked wait is beyond maxRetryAfterMs', async () => {
    const calls = sequence('get', [status(429, { 'Retry-After': '1834' }), ok]);
    const error = (await run(() => client().transactions.get(TX_ID), 0)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(1_834_000);
    expect(error.retries).toBe(0);
    expect(calls.calls).toBe(1);
  });

  it('uses details.reset_in_seconds as the wait when no header says', async () => {
    const body = {
      error: 'rate_limit_exceeded',
      message: 'Rate limit exceeded.',
      details: { reset_in_seconds: 3 },
    };
    const calls = sequence('get', [status(429, {}, body), ok]);
    const result = settle(client().transactions.get(TX_ID));
    await vi.advanceTimersByTimeAsync(2_900);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await result).toMatchObject({ id: TX_ID });
  });

  it('maxRetries 0 turns retries off', async () => {
    const calls = sequence('get', [networkError, ok]);
    const error = await run(() => client({ maxRetries: 0 }).transactions.get(TX_ID));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls.calls).toBe(1);
  });

  it('an abort during the backoff stops the retries', async () => {
    const calls = sequence('get', [status(503)]);
    const controller = new AbortController();
    const result = settle(client().transactions.get(TX_ID, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await result) as Error).toMatchObject({ name: 'RequestAbortedError' });
    expect(calls.calls).toBe(1);
  });
});

describe('PATCH (an overwrite: repeating it has the same effect)', () => {
  const update = () => client().transactions.update(TX_ID, { notes: 'x' });

  it('is NOT retried on 500 (the service answers client mistakes with 500)', async () => {
    const calls = sequence('patch', [status(500, {}, { error: 'internal_server_error' }), ok]);
    const error = await run(update);
    expect(error).toBeInstanceOf(ServerError);
    expect(calls.calls).toBe(1);
  });

  it.each([502, 503, 504])('is retried on %i', async (code) => {
    const calls = sequence('patch', [status(code), ok]);
    expect(await run(update)).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(2);
  });

  it('is retried on 429 (refused before acting), honouring Retry-After', async () => {
    const calls = sequence('patch', [status(429, { 'Retry-After': '2' }), ok]);
    const result = settle(update());
    await vi.advanceTimersByTimeAsync(1_900);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await result).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(2);
  });

  it('is retried on a connection error and on a timeout', async () => {
    const calls = sequence('patch', [networkError, hang, ok]);
    const result = await run(() => client({ timeoutMs: 1_000 }).transactions.update(TX_ID, { notes: 'x' }));
    expect(result).toMatchObject({ id: TX_ID });
    expect(calls.calls).toBe(3);
  });

  it.each([400, 401, 403, 404, 408, 409, 422])('is never retried on %i', async (code) => {
    const calls = sequence('patch', [status(code), ok]);
    expect(await run(update)).toBeInstanceOf(ServiceAPIError);
    expect(calls.calls).toBe(1);
  });

  it('sends the same body on every attempt', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.patch(`${API}/transactions/:id`, async ({ request }) => {
        bodies.push(await request.json());
        return bodies.length === 1
          ? HttpResponse.json({}, { status: 503 })
          : HttpResponse.json(wireTransaction());
      }),
    );
    await run(() => client().transactions.update(TX_ID, { notes: 'n', tag_ids: [] }));
    expect(bodies).toEqual([
      { transaction: { notes: 'n', tag_ids: [] } },
      { transaction: { notes: 'n', tag_ids: [] } },
    ]);
  });
});

describe('raw requests follow the method', () => {
  it('PUT is an overwrite: retried on 503, not on 500', async () => {
    const put = sequence('put', [status(503), status(500), ok]);
    const error = await run(() =>
      client().request({
        method: 'PUT',
        path: `transactions/${TX_ID}`,
        body: { transaction: { notes: 'x' } },
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(put.calls).toBe(2);
  });

  it('POST is retried only on 429; never on 503 or a network error', async () => {
    const post = sequence('post', [status(429, { 'Retry-After': '1' }), status(503), ok], '/transactions');
    const error = await run(() => client().request({ method: 'POST', path: 'transactions', body: {} }));
    expect(error).toBeInstanceOf(ServerError);
    expect(post.calls).toBe(2);

    const broken = sequence('delete', [networkError, ok]);
    expect(
      await run(() => client().request({ method: 'DELETE', path: `transactions/${TX_ID}` })),
    ).toBeInstanceOf(ConnectionError);
    expect(broken.calls).toBe(1);
  });

  it('maps a 422 from a raw request to ValidationError', async () => {
    sequence('patch', [status(422, {}, { error: 'validation_failed', errors: ["Name can't be blank"] })]);
    const error = (await run(() =>
      client().request({
        method: 'PATCH',
        path: `transactions/${TX_ID}`,
        body: { transaction: { name: '' } },
      }),
    )) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual(["Name can't be blank"]);
  });
});
