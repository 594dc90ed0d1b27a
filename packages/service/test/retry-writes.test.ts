/**
 * Retries of create, delete, restore and listDeleted: a create with `external_id` is idempotent and
 * retried like an update; a create without it, a delete and a restore are repeated only on 429.
 */
import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  ServerError,
  ServiceAPIError,
  ServiceClient,
  TimeoutError,
  type TransactionCreate,
} from '../src/index.js';
import { isRetryableStatus } from '../src/retry.js';
import { handleServiceRequest } from '../src/msw.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';
import { seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
const server = fake.server;
const client = (timeoutMs = 30_000) => new ServiceClient({ baseUrl: BASE, apiKey: KEY, timeoutMs });
const ACCOUNT = '0b7e5d1c-1111-4c1e-9a57-2f0e8b1d3c44';
const NEW: TransactionCreate = { account_id: ACCOUNT, name: 'Coffee', date: '2026-05-02', amount: 4.5 };
const KEYED: TransactionCreate = { ...NEW, external_id: 'bank-7' };

type Step = () => Response | Promise<Response>;
const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  () =>
    HttpResponse.json({ error: 'x', message: 'y' }, { status: code, headers });
const created: Step = () => HttpResponse.json(wireTransaction(), { status: 201 });
const ok: Step = () => HttpResponse.json(wireTransaction());
const deleted: Step = () => HttpResponse.json({ message: 'Transaction deleted successfully' });
const page: Step = () =>
  HttpResponse.json({
    transactions: [wireTransaction()],
    pagination: { page: 1, per_page: 25, total_count: 1, total_pages: 1 },
  });
const networkError: Step = () => HttpResponse.error();
const hang: Step = async () => {
  await delay('infinite');
  return created();
};

/** Serves `steps` in order (the last one repeats) for `method path`; counts requests. */
function sequence(method: 'post' | 'delete' | 'get', path: string, steps: Step[]) {
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

async function run<T>(call: () => Promise<T>, advanceMs = 60_000): Promise<T | unknown> {
  const result = settle(call());
  await vi.advanceTimersByTimeAsync(advanceMs);
  return result;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the policy table', () => {
  it('idempotent (a keyed POST) repeats what an overwrite repeats', () => {
    expect([429, 502, 503, 504].every((s) => isRetryableStatus('idempotent', s))).toBe(true);
    expect([400, 401, 403, 404, 408, 409, 422, 500].some((s) => isRetryableStatus('idempotent', s))).toBe(
      false,
    );
  });
});

describe('create WITH external_id (idempotent: a repeat answers 200 with the first row)', () => {
  it.each([502, 503, 504])('is retried on %i', async (code) => {
    const calls = sequence('post', '/transactions', [status(code), created]);
    expect(await run(() => client().transactions.create(KEYED))).toMatchObject({ created: true });
    expect(calls.calls).toBe(2);
  });

  it('is retried on a connection error and on a timeout', async () => {
    const calls = sequence('post', '/transactions', [networkError, hang, created]);
    expect(await run(() => client(1_000).transactions.create(KEYED))).toMatchObject({ created: true });
    expect(calls.calls).toBe(3);
  });

  it.each([500, 400, 409, 422])('is not retried on %i', async (code) => {
    const calls = sequence('post', '/transactions', [status(code), created]);
    expect(await run(() => client().transactions.create(KEYED))).toBeInstanceOf(ServiceAPIError);
    expect(calls.calls).toBe(1);
  });

  it('against the fake: the lost 503 made the row; the retry gets it back (200), and only one row exists', async () => {
    const world = seedStore();
    fake.use(world.store);
    let attempts = 0;
    server.use(
      http.post(`${API}/transactions`, async ({ request }) => {
        attempts += 1;
        const answer = await handleServiceRequest(world.store, request, { baseUrl: BASE });
        return attempts === 1 ? HttpResponse.json({ error: 'bad_gateway' }, { status: 503 }) : answer;
      }),
    );
    const before = world.store.transactions.size;
    const result = (await run(() =>
      client().transactions.create({ ...KEYED, account_id: world.checking.id }),
    )) as { created: boolean; transaction: { id: string; name: string } };
    expect(attempts).toBe(2);
    expect(world.store.requests.map((r) => r.status)).toEqual([201, 200]);
    expect(result.created).toBe(false); // the row was made by this call's first, unanswered attempt
    expect(world.store.transactions.size).toBe(before + 1);
    expect(world.store.transactions.get(result.transaction.id)?.external_id).toBe('bank-7');
  });
});

describe('create WITHOUT external_id (not idempotent)', () => {
  it.each([
    ['503', status(503), ServerError],
    ['502', status(502), ServerError],
    ['a connection error', networkError, ConnectionError],
  ])('is not retried on %s (the row may exist already)', async (_name, failure, type) => {
    const calls = sequence('post', '/transactions', [failure, created]);
    expect(await run(() => client().transactions.create(NEW))).toBeInstanceOf(type);
    expect(calls.calls).toBe(1);
  });

  it('is not retried on a timeout', async () => {
    const calls = sequence('post', '/transactions', [hang, created]);
    expect(await run(() => client(1_000).transactions.create(NEW))).toBeInstanceOf(TimeoutError);
    expect(calls.calls).toBe(1);
  });

  it('is retried on 429 (refused before acting), honouring Retry-After', async () => {
    const calls = sequence('post', '/transactions', [status(429, { 'Retry-After': '2' }), created]);
    const result = settle(client().transactions.create(NEW));
    await vi.advanceTimersByTimeAsync(1_900);
    expect(calls.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await result).toMatchObject({ created: true, transaction: { id: TX_ID } });
    expect(calls.calls).toBe(2);
  });

  it('against the fake: a lost 503 leaves the row made and the error thrown, without a second row', async () => {
    const world = seedStore();
    fake.use(world.store);
    server.use(
      http.post(`${API}/transactions`, async ({ request }) => {
        await handleServiceRequest(world.store, request, { baseUrl: BASE });
        return HttpResponse.json({ error: 'bad_gateway' }, { status: 503 });
      }),
    );
    const before = world.store.transactions.size;
    const error = await run(() => client().transactions.create({ ...NEW, account_id: world.checking.id }));
    expect(error).toBeInstanceOf(ServerError);
    expect(world.store.transactions.size).toBe(before + 1);
  });
});

describe('delete and restore are repeated only on 429 (a repeat after success answers 404)', () => {
  const path = `/transactions/${TX_ID}`;

  it.each([
    ['503', status(503), ServerError],
    ['a connection error', networkError, ConnectionError],
  ])('delete is not retried on %s', async (_name, failure, type) => {
    const calls = sequence('delete', path, [failure, deleted]);
    expect(await run(() => client().transactions.delete(TX_ID))).toBeInstanceOf(type);
    expect(calls.calls).toBe(1);
  });

  it('delete is retried on 429', async () => {
    const calls = sequence('delete', path, [status(429, { 'Retry-After': '1' }), deleted]);
    expect(await run(() => client().transactions.delete(TX_ID))).toEqual({
      message: 'Transaction deleted successfully',
    });
    expect(calls.calls).toBe(2);
  });

  it('restore is not retried on 503, and is on 429', async () => {
    const failing = sequence('post', `${path}/restore`, [status(503), ok]);
    expect(await run(() => client().transactions.restore(TX_ID))).toBeInstanceOf(ServerError);
    expect(failing.calls).toBe(1);
    const limited = sequence('post', `${path}/restore`, [status(429, { 'Retry-After': '1' }), ok]);
    expect(await run(() => client().transactions.restore(TX_ID))).toMatchObject({ id: TX_ID });
    expect(limited.calls).toBe(2);
  });
});

describe('listDeleted is a read', () => {
  it('is retried on 500 and 503', async () => {
    const calls = sequence('get', '/transactions/deleted', [status(500), status(503), page]);
    const rows = await run(() => client().transactions.listDeleted().toArray({ limit: 10 }));
    expect(rows).toHaveLength(1);
    expect(calls.calls).toBe(3);
  });
});
