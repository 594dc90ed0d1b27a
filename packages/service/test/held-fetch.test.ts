/**
 * A custom `fetch` that holds the request before passing it on (a client-side throttle's queue, as
 * sdk-practices.md recommends at the fetch seam) or never hears the signal: the caller's abort still
 * ends the call at once, and the client's own timeout still ends it as a `TimeoutError`.
 */
import { heldFetch } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { RequestAbortedError, ServiceClient, TimeoutError } from '../src/index.js';
import { settle, TX_ID } from './helpers.js';

/** A fetch holding each request for `ms` before it answers, deaf to the signal. */
const heldFor = (ms: number) => heldFetch(ms, () => Response.json({}, { status: 200 }));

const client = (fetch: typeof globalThis.fetch, timeoutMs = 10_000) =>
  new ServiceClient({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'k'.repeat(40),
    fetch,
    timeoutMs,
    maxRetries: 0,
  });

describe('a fetch that holds the request', () => {
  it('hears an abort while the fetch holds the request: RequestAbortedError at once, not at the timeout', async () => {
    const held = heldFor(2_000);
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort();
    }, 50);
    const error = await settle(client(held.fetch).transactions.get(TX_ID, { signal: controller.signal }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    // Timed from the abort: a loaded machine may fire the abort's timer late.
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(held.passedOn()).toBe(0);
  });

  it('still ends at its own timeout as a TimeoutError, not as an abort', async () => {
    const held = heldFor(5_000);
    const error = await settle(client(held.fetch, 200).transactions.get(TX_ID));
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('a fetch that answers with a plain Response, not a promise', () => {
  it('is read as before (a mock returning a value)', async () => {
    const fetch = (() =>
      Response.json({ error: 'not_found' }, { status: 404 })) as unknown as typeof globalThis.fetch;
    const error = await settle(client(fetch).transactions.get(TX_ID));
    expect((error as { status?: number }).status).toBe(404);
  });
});
