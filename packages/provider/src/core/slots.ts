/**
 * The provider's rate limit as slots handed to the waiting requests in order. p-throttle gives each
 * call its own slot, so a request aborted while it waited kept its slot, and every request behind it
 * waited that much longer (three cancelled calls at one a second made the next take four seconds).
 * Here each request asks p-throttle for a slot, and each slot, when it comes, goes to the oldest
 * request still waiting: an aborted request's slot serves the next one.
 */
import pThrottle from 'p-throttle';

interface Waiter {
  settled: boolean;
  take: () => void;
}

/** `wait(signal)` resolves when the request may go; it rejects with the signal's reason on abort. */
export function slotQueue(limit: number, intervalMs: number): (signal?: AbortSignal) => Promise<void> {
  const waiting: Waiter[] = [];
  const slot = pThrottle({ limit, interval: intervalMs, strict: true })(() => {
    for (let waiter = waiting.shift(); waiter; waiter = waiting.shift()) {
      if (waiter.settled) continue;
      waiter.settled = true;
      waiter.take();
      return;
    }
  });
  return (signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        if (waiter.settled) return;
        waiter.settled = true;
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        settled: false,
        take: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
      void slot();
    });
}
