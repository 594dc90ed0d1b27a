import type { AccountReport, ConnectionReport } from './report.js';

/** Where a run stands, as the `progress` event reports it (at each account and as pages arrive). */
export interface SyncProgress {
  /** The connection being synced. */
  connectionId: string;
  /** Active accounts finished so far in this run. */
  accountsDone: number;
  /** Active accounts this run syncs (inactive and gone ones are not counted). */
  accountsTotal: number;
  /** Transactions received so far in this run, across its accounts. */
  transactionsFetched: number;
  /** The account being synced; `null` once all are done. */
  currentAccountId: string | null;
}

/** The events `SyncEngine.on` and `SyncWorker.on` offer, each with the payload its listeners receive. */
export interface SyncEvents {
  /** A run of a connection began (not sent for a run that is skipped). */
  'run:start': {
    /** The connection being run. */
    connectionId: string;
  };
  /** A run moved on (an account begun or finished, a page of transactions received). */
  progress: SyncProgress;
  /** One account of a run is finished, with its report. */
  'account:done': {
    /** The connection the account belongs to. */
    connectionId: string;
    /** What the run did to the account. */
    report: AccountReport;
  };
  /** A run of a connection ended, with its report; also sent for a run that was skipped. */
  'run:done': {
    /** The run's report. */
    report: ConnectionReport;
  };
}

/** The name of one of the {@link SyncEvents}. */
export type SyncEventName = keyof SyncEvents;

const EVENT_NAMES: ReadonlySet<string> = new Set<SyncEventName>([
  'run:start',
  'progress',
  'account:done',
  'run:done',
]);
/** A listener of one event, given that event's payload. */
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
