/** The client's rate limit: a strict sliding window, in order, and a cancelled wait takes no slot. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { slotQueue } from '../src/core/slots.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('slotQueue', () => {
  it('lets `limit` go in any interval, in the order they came', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const wait = slotQueue(2, 300);
    const went: Array<[number, number]> = [];
    const start = Date.now();
    const all = Promise.all(
      [0, 1, 2, 3, 4].map((n) => wait().then(() => went.push([n, Date.now() - start]))),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await all;
    expect(went).toEqual([
      [0, 0],
      [1, 0],
      [2, 300],
      [3, 300],
      [4, 600],
    ]);
  });

  it('a wait cancelled leaves no slot behind, even when nobody waits at the time it would have gone', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const wait = slotQueue(2, 300);
    const start = Date.now();
    await wait();
    await wait();
    const controller = new AbortController();
    const cancelled = [wait(controller.signal), wait(controller.signal)].map((p) =>
      p.catch((reason: unknown) => reason),
    );
    await vi.advanceTimersByTimeAsync(20);
    controller.abort('stop');
    expect(await Promise.all(cancelled)).toEqual(['stop', 'stop']);
    // Past the first window: with p-throttle the cancelled calls' slots fired at 300 ms and filled it.
    await vi.advanceTimersByTimeAsync(330);
    let wentAt: number | undefined;
    void wait().then(() => (wentAt = Date.now() - start));
    await vi.advanceTimersByTimeAsync(0);
    expect(wentAt).toBe(350);
  });

  it('leaves no timer behind once every waiting call is cancelled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const wait = slotQueue(1, 60_000);
    await wait();
    const controller = new AbortController();
    const cancelled = wait(controller.signal).catch(() => 'aborted');
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await cancelled).toBe('aborted');
    // A timer left would keep a process that has nothing left to do alive for up to a minute.
    expect(vi.getTimerCount()).toBe(0);
  });
});
