/**
 * The provider's rate limit: at most `limit` requests go in any `intervalMs` (a strict sliding
 * window), handed to the waiting requests in order. A request aborted while it waits leaves the
 * queue and takes no slot. p-throttle, used before, schedules each call's slot when it is queued and
 * cannot take one back: a cancelled call's slot still fired, so three calls cancelled at one a second
 * made the next one wait four seconds (and, with nobody waiting when it fired, still filled the
 * window for a request coming just after).
 */

interface Waiter {
  take: () => void;
  abandon: () => void;
}

/** `wait(signal)` resolves when the request may go; it rejects with the signal's reason on abort. */
export function slotQueue(
  limit: number,
  intervalMs: number,
  now: () => number = () => Date.now(),
): (signal?: AbortSignal) => Promise<void> {
  /** When the last (at most `limit`) requests went, oldest first. */
  const sent: number[] = [];
  const waiting: Waiter[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const pump = () => {
    timer = undefined;
    while (waiting.length > 0) {
      const at = now();
      while (sent.length > 0 && sent[0]! <= at - intervalMs) sent.shift();
      if (sent.length >= limit) {
        timer = setTimeout(pump, sent[0]! + intervalMs - at);
        return;
      }
      sent.push(at);
      waiting.shift()!.take();
    }
  };

  return (signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => waiter.abandon();
      const waiter: Waiter = {
        take: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        abandon: () => {
          const index = waiting.indexOf(waiter);
          if (index !== -1) waiting.splice(index, 1);
          // Nobody left to wake: the timer would only keep the process alive.
          if (waiting.length === 0 && timer !== undefined) {
            clearTimeout(timer);
            timer = undefined;
          }
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
      if (timer === undefined) pump();
    });
}
