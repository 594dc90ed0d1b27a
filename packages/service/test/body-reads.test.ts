/**
 * Reading an answer's body after its headers: the caller's signal is heard while it arrives, the
 * timeout is between chunks (a body that keeps arriving is read however long it takes), a body cut
 * off is asked for again when the call may be repeated, and a body past its bound is refused (2xx)
 * or read only as far as its message (errors).
 */
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InvalidResponseError,
  RequestAbortedError,
  ServiceAPIError,
  TimeoutError,
} from '../src/index.js';
import { LIMITS } from '../src/limits.js';
import { clientFor, seedStore, useFakeService } from './fake-fixture.js';
import { API, settle, TX_ID, wireTransaction } from './helpers.js';

const fake = useFakeService();
beforeEach(() => fake.use(seedStore().store));

const encoder = new TextEncoder();
const json = { 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A transaction's JSON sent in `parts` chunks, `gapMs` apart. */
function trickled(parts: number, gapMs: number): ReadableStream<Uint8Array> {
  const text = JSON.stringify(wireTransaction());
  const size = Math.ceil(text.length / parts);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= text.length) return controller.close();
      if (sent > 0) await sleep(gapMs);
      controller.enqueue(encoder.encode(text.slice(sent, sent + size)));
      sent += size;
    },
  });
}

describe('reading a body', () => {
  it('stops at an abort while the body arrives: RequestAbortedError at once, not a timeout later', async () => {
    fake.server.use(
      http.get(`${API}/transactions/:id`, () => {
        const stalled = new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(encoder.encode('{"id":')),
        });
        return new HttpResponse(stalled, { status: 200, headers: json });
      }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await settle(
      clientFor({ timeoutMs: 10_000 }).transactions.get(TX_ID, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops at an abort while an error answer's body arrives, as while a 2xx one does", async () => {
    fake.server.use(
      http.get(`${API}/transactions/:id`, () => {
        const stalled = new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(encoder.encode('{"error":"internal_server_error",')),
        });
        return new HttpResponse(stalled, { status: 500, headers: json });
      }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await settle(
      clientFor({ timeoutMs: 10_000, maxRetries: 0 }).transactions.get(TX_ID, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('takes a body that keeps arriving for longer than timeoutMs, a chunk at a time within it', async () => {
    fake.server.use(
      http.get(
        `${API}/transactions/:id`,
        () => new HttpResponse(trickled(8, 100), { status: 200, headers: json }),
      ),
    );
    const started = Date.now();
    const transaction = await clientFor({ timeoutMs: 400 }).transactions.get(TX_ID);
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(transaction.id).toBe(wireTransaction().id);
  });

  it(`refuses a 2xx body over ${LIMITS.responseBytes} bytes with InvalidResponseError, reading no further`, async () => {
    const chunk = new Uint8Array(2 ** 20).fill(0x20);
    let sent = 0;
    fake.server.use(
      http.get(`${API}/transactions/:id`, () => {
        const endless = new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          },
        });
        return new HttpResponse(endless, { status: 200, headers: json });
      }),
    );
    const error = await settle(clientFor().transactions.get(TX_ID));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain(`more than ${LIMITS.responseBytes} bytes`);
    expect(sent).toBeLessThan(LIMITS.responseBytes + 8 * chunk.byteLength);
  });

  it('reads an error answer only as far as its bound: an endless error body still ends in its error', async () => {
    fake.server.use(
      http.get(`${API}/transactions/:id`, () => {
        let first = true;
        const endless = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(
              encoder.encode(first ? '{"error":"internal_server_error",' : ' '.repeat(65_536)),
            );
            first = false;
          },
        });
        return new HttpResponse(endless, { status: 500, headers: json });
      }),
    );
    const error = await settle(clientFor({ timeoutMs: 5_000 }).transactions.get(TX_ID));
    expect(error).toBeInstanceOf(ServiceAPIError);
    expect((error as ServiceAPIError).status).toBe(500);
  });
});

/** Headers and the first bytes of a transaction, then nothing more. */
const stalledAnswer = () =>
  new HttpResponse(
    new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(encoder.encode('{"id":')) }),
    { status: 200, headers: json },
  );

/** Headers and the first bytes, then the connection breaks. */
const brokenAnswer = () =>
  new HttpResponse(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('{"id":'));
        setTimeout(() => controller.error(new TypeError('terminated')), 20);
      },
    }),
    { status: 200, headers: json },
  );

/** Serves `answers` in turn for `method` on `path` (the last repeats) and counts the requests. */
function inTurn(method: 'get' | 'post', path: string, answers: Array<() => Response>) {
  const state = { calls: 0 };
  fake.server.use(http[method](path, () => answers[Math.min(state.calls++, answers.length - 1)]!()));
  return state;
}

describe('a body cut off after its headers', () => {
  const whole = () => HttpResponse.json(wireTransaction(), { headers: json });

  it('is asked for again by a GET, which then answers; the retry is logged', async () => {
    const served = inTurn('get', `${API}/transactions/:id`, [stalledAnswer, brokenAnswer, whole]);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m) };
    const transaction = await clientFor({ timeoutMs: 150, maxRetries: 2, logger }).transactions.get(TX_ID);
    expect(transaction.id).toBe(wireTransaction().id);
    expect(served.calls).toBe(3);
    expect(warnings.filter((m) => m.includes('cut off'))).toHaveLength(2);
  });

  it('gives up after maxRetries in all, counting retries made before the body came', async () => {
    const failing = () => HttpResponse.json({ error: 'x' }, { status: 503 });
    const served = inTurn('get', `${API}/transactions/:id`, [failing, stalledAnswer]);
    const error = await settle(clientFor({ timeoutMs: 150, maxRetries: 2 }).transactions.get(TX_ID));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(served.calls).toBe(3);
    expect((error as TimeoutError).retries).toBe(2);
  });

  it('is not asked for again by a create without an external_id: the row may exist already', async () => {
    const served = inTurn('post', `${API}/transactions`, [brokenAnswer]);
    const error = await settle(
      clientFor({ timeoutMs: 150, maxRetries: 2 }).transactions.create({
        account_id: TX_ID,
        name: 'Coffee',
        date: '2026-05-02',
        amount: 4.5,
      }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(served.calls).toBe(1);
  });

  it('hears an abort while it waits to ask again', async () => {
    const served = inTurn('get', `${API}/transactions/:id`, [stalledAnswer]);
    const controller = new AbortController();
    // The first read fails at 100 ms; the retry waits at least 375 ms, and the abort comes in that wait.
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort();
    }, 250);
    const error = await settle(
      clientFor({ timeoutMs: 100, maxRetries: 2 }).transactions.get(TX_ID, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(RequestAbortedError);
    // Heard in the wait, the call ends with the abort, not when the retry was due (over 100 ms later).
    // Timed from the abort, not from the start: a loaded machine may fire the abort's timer late.
    expect(Date.now() - abortedAt).toBeLessThan(100);
    expect(served.calls).toBe(1);
  });
});
