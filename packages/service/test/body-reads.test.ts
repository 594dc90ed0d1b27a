/**
 * Reading an answer's body after its headers: the caller's signal is heard while it arrives, the
 * timeout is between chunks (a body that keeps arriving is read however long it takes), and a body
 * past its bound is refused (2xx) or read only as far as its message (errors).
 */
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidResponseError, RequestAbortedError, ServiceAPIError } from '../src/index.js';
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
