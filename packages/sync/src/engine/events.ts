import type { AccountReport, ConnectionReport } from './report.js';

export interface SyncProgress {
  connectionId: string;
  accountsDone: number;
  accountsTotal: number;
  /** Transactions received so far in this run, across its accounts. */
  transactionsFetched: number;
  currentAccountId: string | null;
}

export interface SyncEvents {
  'run:start': { connectionId: string };
  progress: SyncProgress;
  'account:done': { connectionId: string; report: AccountReport };
  'run:done': { report: ConnectionReport };
}

export type SyncEventName = keyof SyncEvents;

const EVENT_NAMES: ReadonlySet<string> = new Set<SyncEventName>([
  'run:start',
  'progress',
  'account:done',
  'run:done',
]);
export type SyncListener<E extends SyncEventName> = (payload: SyncEvents[E]) => void;

/** A small typed emitter: a listener that throws is logged and ignored, never breaking a run. */
export class SyncEventEmitter {
  readonly #listeners = new Map<SyncEventName, Set<(payload: never) => void>>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  on<E extends SyncEventName>(event: E, listener: SyncListener<E>): () => void {
    if (!EVENT_NAMES.has(event))
      throw new TypeError(
        `no event ${JSON.stringify(String(event).slice(0, 40))}: one of ${[...EVENT_NAMES].join(', ')}`,
      );
    if (typeof listener !== 'function') throw new TypeError(`the listener of ${event} must be a function`);
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<E extends SyncEventName>(event: E, payload: SyncEvents[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        (listener as SyncListener<E>)(payload);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}
