/**
 * One connection's run and the callers waiting on it (`SyncEngine.sync` joins a run in flight). The
 * run is aborted once every caller has aborted: a caller without a signal keeps it going, and so
 * does one whose signal has not fired.
 */
import { SyncAbortedError } from '../errors.js';
import type { ConnectionReport } from './report.js';

export class SharedRun {
  readonly controller = new AbortController();
  /** Set by the engine right after construction, before any caller joins. */
  promise!: Promise<ConnectionReport>;
  /** Callers that may still abort, or never will (no signal). */
  #waiting = 0;

  join(signal: AbortSignal | undefined): Promise<ConnectionReport> {
    this.#waiting += 1;
    if (!signal) return this.promise;
    return new Promise<ConnectionReport>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting -= 1;
        if (this.#waiting === 0) {
          // The last caller left: the run stops between commits, and its report is the answer.
          this.controller.abort(signal.reason);
          return;
        }
        reject(
          new SyncAbortedError(
            'stopped waiting for the sync; it goes on for the other callers waiting on it',
            {
              cause: signal.reason,
            },
          ),
        );
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      this.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}
