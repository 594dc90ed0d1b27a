/**
 * `answer`, or the signal's reason as soon as the signal aborts. ky hands its signal to `fetch`, but
 * a custom `fetch` need not hear it before it has passed the request on (a throttle's queue holding
 * the call, a wrapper that drops the signal), and the caller's abort must end the call anyway. ky's
 * own timeout aborts this signal too, but rejects with its `TimeoutError` first, so that error is the
 * one the caller sees. An answer that arrives after the abort is let go: its body is cancelled.
 */
export function untilAborted(
  fetched: Response | PromiseLike<Response>,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  // A fetch may answer with a plain Response (a mock's `mockReturnValue`), as `await` took it before.
  const answer = Promise.resolve(fetched);
  if (!signal) return answer;
  const letGo = (late: Response) => void late.body?.cancel().catch(() => undefined);
  if (signal.aborted) {
    answer.then(letGo, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      answer.then(letGo, () => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
