import { isStorableText } from '@finsync/internals/text';
import { ProviderClient, type ProviderClientOptions } from '@finsync/provider';
import { checkedSignal, guardedLogger } from '@finsync/internals/http';
import { MissingCredentialsError, SyncAbortedError, UnknownConnectionError } from '../errors.js';
import type { ConnectionState, FeedEntry } from '../model.js';
import { isWorkQueue, type ReadChangesOptions, type Storage } from '../storage/types.js';
import {
  findAccountSuccessors,
  type AccountSuccessor,
  type AccountSuccessorOptions,
} from './account-successors.js';
import { mayCall, newConnectionState, nextConnectionState } from './connection-status.js';
import { SyncEventEmitter, type SyncEventName, type SyncListener } from './events.js';
import { checkedTuning, type EngineClock, type SyncLogger, type SyncTuning } from './options.js';
import type { ConnectionReport, SyncReport } from './report.js';
import { runConnection } from './run.js';
import { Scheduler, checkedSchedule, type ScheduleOptions } from './scheduler.js';
import { fencedStorage } from './fenced-storage.js';
import { SharedRun } from './shared-run.js';

/**
 * What `new SyncEngine(...)` takes: a storage, plus optional tuning ({@link SyncTuning}) and schedule
 * ({@link ScheduleOptions}) fields at the top level, each defaulted when left out.
 */
/** Every field optional, and `undefined` taken as left out (so under `exactOptionalPropertyTypes` too). */
type LeftOutWhenUndefined<T> = { [K in keyof T]?: T[K] | undefined };

export interface SyncEngineOptions
  extends LeftOutWhenUndefined<SyncTuning>, LeftOutWhenUndefined<ScheduleOptions> {
  /** Where the mirror, the change feed and the engine's bookkeeping are kept. */
  storage: Storage;
  /** Receives the engine's log lines (runs started and finished, skipped runs, listener failures). Default: none. */
  logger?: SyncLogger | undefined;
  /** Injectable time, for tests and for users whose "today" is not the machine's. */
  clock?: Partial<EngineClock> | undefined;
  /** Client options used for connections added with a bare `apiKey`. */
  clientOptions?: Omit<ProviderClientOptions, 'apiKey'> | undefined;
  /**
   * Keys for stored connections the engine was not given one for since it started, so the
   * scheduler keeps every stored connection fresh after a restart (`SealedCredentials` from
   * `@finsync/sync/credentials` is one such source). A connection with no key anywhere is reported
   * (a skipped run with `MissingCredentialsError`), never skipped in silence.
   */
  credentials?: CredentialSource | undefined;
  /**
   * Called before each run the scheduler starts (not before your own `sync()` calls), with the
   * connection's id: a place to give the engine, with `updateCredentials`, a key another process
   * stored meanwhile. When it throws, that run is not started and the error is logged.
   */
  beforeScheduledRun?: ((connectionId: string) => Promise<void> | void) | undefined;
}

/**
 * How a connection reaches the provider: a ready `ProviderClient`, or an API key from which the
 * engine makes one (with `clientOptions` laid over the engine's own `clientOptions`).
 */
export type ConnectionCredentials =
  | {
      /** A client to call the provider with, used as it is. */
      client: ProviderClient;
    }
  | {
      /** The connection's provider API key. */
      apiKey: string;
      /** Client options for this connection, over the engine's `clientOptions`. */
      clientOptions?: Omit<ProviderClientOptions, 'apiKey'> | undefined;
    };

/**
 * Where the engine finds a connection's key when it has none in memory (after a restart, say):
 * `undefined` when it has none. Asked once per connection until it has a key; `updateCredentials`
 * replaces what it answered.
 */
export type CredentialSource = (
  connectionId: string,
) => Promise<ResolvedCredentials | undefined> | ResolvedCredentials | undefined;

/** What a `CredentialSource` answers: credentials, or a ready client. */
export type ResolvedCredentials = ConnectionCredentials | ProviderClient;

/**
 * What `addConnection` takes: the connection's id (a non-empty string of at most
 * {@link MAX_CONNECTION_ID_LENGTH} characters, chosen by you) and its credentials.
 */
export type AddConnectionOptions = {
  /** The connection's id: how you name it in every other call, and how the storage keys its rows. */
  id: string;
} & ConnectionCredentials;

/**
 * The longest id `addConnection` takes for a new connection. Ids are keys in every storage's tables
 * and appear in errors and logs; 256 characters leave room for any id scheme (a UUID is 36). A
 * connection stored with a longer id before this bound keeps working.
 */
export const MAX_CONNECTION_ID_LENGTH = 256;

/**
 * Whether no storage can hold a connection with this id as given: not a string, empty, or with a
 * U+0000 (which PostgreSQL's text cannot store) or a lone UTF-16 surrogate (which SQLite and
 * PostgreSQL store as U+FFFD: two such ids became one connection on PostgreSQL, and on SQLite one
 * never found again under the id it was listed with). A lookup of such an id finds nothing without
 * reaching the storage.
 */
function impossibleId(id: unknown): boolean {
  return unaskableId(id) || !isStorableText(id as string);
}

/** Ids no storage can even be asked about: not a string, empty, or with a U+0000 (PostgreSQL refuses it). */
function unaskableId(id: unknown): boolean {
  return typeof id !== 'string' || id.length === 0 || id.includes('\u0000');
}

/** Options of one `sync()` call. */
export interface SyncCallOptions {
  /**
   * Aborts this call. The run itself stops (between commits, keeping what committed) once every
   * caller waiting on it has aborted.
   */
  signal?: AbortSignal | undefined;
  /**
   * Commit only while this worker holds the connection's lease (see `SyncWorker`): every write of
   * the run carries the fence, and a storage with leases refuses it once the lease is lost.
   */
  workerId?: string | undefined;
}

/** Why a run whose signal fired before it began did not run. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new SyncAbortedError('the sync was aborted before it began', { cause: signal.reason });
}

function localToday(now: Date): string {
  const offset = now.getTimezoneOffset() * 60_000;
  return new Date(now.getTime() - offset).toISOString().slice(0, 10);
}

/**
 * Keeps a mirror of the provider's data for many connections in one storage, and publishes every
 * change to it as a change feed.
 *
 * ```ts
 * const engine = new SyncEngine({ storage: new SqliteStorage({ filename: 'finsync.db' }) });
 * await engine.addConnection({ id: 'user-1', apiKey: process.env.LUNCHFLOW_API_KEY! });
 * const report = await engine.sync('user-1');
 * for await (const change of engine.changes({ after: savedCursor })) apply(change);
 * ```
 */
export class SyncEngine {
  /** The storage given to the constructor; read the mirror from it directly. */
  readonly storage: Storage;
  readonly #tuning: SyncTuning;
  readonly #clock: EngineClock;
  readonly #logger: SyncLogger | undefined;
  readonly #clientOptions: Omit<ProviderClientOptions, 'apiKey'> | undefined;
  readonly #credentials: CredentialSource | undefined;
  readonly #clients = new Map<string, ProviderClient>();
  readonly #running = new Map<string, SharedRun>();
  /** `beforeScheduledRun` hooks under way: runs about to start, which `stop()` waits for. */
  readonly #preparing = new Set<Promise<unknown>>();
  readonly #events: SyncEventEmitter;
  readonly #scheduler: Scheduler;
  #initialized: Promise<void> | undefined;

  constructor(options: SyncEngineOptions) {
    if (!options?.storage) throw new TypeError('SyncEngine needs a storage');
    this.storage = options.storage;
    // A logger that throws would otherwise reject a run whose data is committed, losing its report.
    this.#logger = guardedLogger(options.logger);
    this.#clientOptions = options.clientOptions;
    this.#credentials = options.credentials;
    this.#tuning = checkedTuning(options);
    const now = options.clock?.now ?? (() => new Date());
    this.#clock = { now, today: options.clock?.today ?? (() => localToday(now())) };
    this.#events = new SyncEventEmitter((error) =>
      this.#logger?.warn?.('sync event listener threw', { error: String(error) }),
    );
    this.#scheduler = new Scheduler({
      ...checkedSchedule(options),
      clock: this.#clock,
      run: (id) => this.#scheduledRun(id, options.beforeScheduledRun),
      connections: () => this.storage.listConnections(),

      logger: this.#logger,
    });
  }

  /**
   * Listens to an event of every run (see {@link SyncEvents}). Returns a function that removes the
   * listener. A listener that throws is logged and ignored.
   */
  on<E extends SyncEventName>(event: E, listener: SyncListener<E>): () => void {
    return this.#events.on(event, listener);
  }

  #init(): Promise<void> {
    this.#initialized ??= this.storage.init();
    return this.#initialized;
  }

  #clientFor(credentials: ConnectionCredentials): ProviderClient {
    if ('client' in credentials) return credentials.client;
    return new ProviderClient({
      ...this.#clientOptions,
      ...credentials.clientOptions,
      apiKey: credentials.apiKey,
    });
  }

  /** Registers a connection (persisting its state on first sight). Adding a known id replaces its client. */
  async addConnection(options: AddConnectionOptions): Promise<ConnectionState> {
    const id: unknown = options?.id;
    if (typeof id !== 'string' || id.length === 0)
      throw new TypeError('a connection needs an id: a non-empty string');
    if (impossibleId(id))
      throw new TypeError('a connection id cannot contain U+0000 or a lone UTF-16 surrogate');
    await this.#init();
    const existing = await this.storage.getConnection(id);
    if (!existing && id.length > MAX_CONNECTION_ID_LENGTH)
      throw new TypeError(
        `a connection id must be at most ${MAX_CONNECTION_ID_LENGTH} characters, got ${id.length}`,
      );
    this.useClient(options);
    if (existing) return existing;
    const state = newConnectionState(id, this.#clock.now());
    await this.storage.apply({ changes: [], connections: [state] });
    this.#scheduler.poke();
    return state;
  }

  /**
   * Gives a connection a new key (or client). A connection waiting for re-auth becomes active again.
   * A run in flight with the old key is stopped first (between commits): its refusal must not undo
   * the new key.
   */
  async updateCredentials(
    connectionId: string,
    credentials: ConnectionCredentials,
  ): Promise<ConnectionState> {
    await this.#init();
    const client = this.#clientFor(credentials);
    if (impossibleId(connectionId) || !(await this.storage.getConnection(connectionId)))
      throw new UnknownConnectionError(connectionId);
    // The new client first, then the stop: a run in flight keeps the client it was given, and any
    // run that starts from here on, while the old one winds down or after, takes the new one.
    this.#clients.set(connectionId, client);
    await this.#stopRun(connectionId, new SyncAbortedError('the connection was given a new key'));
    // A run in another process (a worker's) is stopped by taking its lease: its next write fails, so a
    // 401 for the old key cannot put `reauth_required` over the state written below. First, so that a
    // write of its already under way lands before that state, not after.
    if (isWorkQueue(this.storage)) await this.storage.revokeLease?.(connectionId, this.#clock.now());
    const state = await this.storage.getConnection(connectionId);
    if (!state) throw new UnknownConnectionError(connectionId);
    const next = nextConnectionState(state, { type: 'credentials-replaced' });
    await this.storage.apply({ changes: [], connections: [next] });
    this.#scheduler.poke();
    return next;
  }

  /**
   * @internal For `SyncWorker`: gives a connection the client of its next run, and stores nothing.
   * A connection removed since the worker claimed it stays removed: its run then finds no connection.
   */
  useClient(options: AddConnectionOptions): void {
    this.#clients.set(options.id, this.#clientFor(options));
  }

  /** Forgets a connection's client; with `purge`, also deletes its mirror, feed entries and state. */
  async removeConnection(connectionId: string, options: { purge?: boolean } = {}): Promise<void> {
    // Only the ids no storage can be asked about return at once: a connection stored under a lone
    // surrogate before such ids were refused is still removed under the id it was added with (on
    // SQLite no other finds it again).
    if (unaskableId(connectionId)) return;
    await this.#init();
    await this.#stopRun(connectionId, new SyncAbortedError('connection removed'));
    this.#clients.delete(connectionId);
    if (options.purge) await this.storage.removeConnection(connectionId);
  }

  /** The connection's stored state; `undefined` when no connection has this id. */
  async getConnection(connectionId: string): Promise<ConnectionState | undefined> {
    if (impossibleId(connectionId)) return undefined;
    await this.#init();
    return this.storage.getConnection(connectionId);
  }

  /** The connection's client: given since start, else from the `credentials` source (and kept). */
  async #clientOf(connectionId: string): Promise<ProviderClient | undefined> {
    const known = this.#clients.get(connectionId);
    if (known || !this.#credentials) return known;
    const credentials = await this.#credentials(connectionId);
    if (!credentials) return undefined;
    const client = credentials instanceof ProviderClient ? credentials : this.#clientFor(credentials);
    this.#clients.set(connectionId, client);
    return client;
  }

  /**
   * Syncs one connection, or every stored one. A call while that connection is already syncing
   * joins the run in flight instead of starting another. A caller's `signal` stops the run only
   * once every caller waiting on it has aborted; one that aborts while others still wait stops
   * waiting (its promise rejects with `SyncAbortedError`) and the run goes on for them.
   */
  sync(connectionId: string, options?: SyncCallOptions): Promise<ConnectionReport>;
  sync(connectionId?: undefined, options?: SyncCallOptions): Promise<SyncReport>;
  sync(connectionId?: string, options: SyncCallOptions = {}): Promise<ConnectionReport | SyncReport> {
    // The clients' own check: an AbortSignal by its shape (a polyfill's is taken), or none.
    try {
      checkedSignal(options.signal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (connectionId === undefined) return this.#syncAll(options);
    if (impossibleId(connectionId)) return Promise.reject(new UnknownConnectionError(connectionId));
    // Registered before the first await, so a `stop` or another call in the same tick sees the run.
    let run = this.#running.get(connectionId);
    // A run already stopped (every caller left, a new key, a stop) is only winding down: a caller
    // now gets a run of its own, begun once that one has ended.
    if (!run || run.controller.signal.aborted) {
      const windingDown = run?.promise.catch(() => undefined);
      const started = new SharedRun();
      const begin = () => this.#start(connectionId, started.controller.signal, options.workerId);
      run = started;
      started.promise = (windingDown ? windingDown.then(begin) : begin()).finally(() => {
        if (this.#running.get(connectionId) === started) this.#running.delete(connectionId);
      });
      this.#running.set(connectionId, started);
    }
    return run.join(options.signal);
  }

  async #syncAll(options: SyncCallOptions): Promise<SyncReport> {
    await this.#init();
    const reports: ConnectionReport[] = [];
    for (const { id } of await this.storage.listConnections()) {
      try {
        reports.push(await this.sync(id, options));
      } catch (error) {
        // A listed id no lookup finds again (one SQLite stored with a lone surrogate, before such ids
        // were refused, lists as U+FFFD) cannot be synced: it is skipped, said once a run, and the
        // others are synced.
        if (!(error instanceof UnknownConnectionError)) throw error;
        this.#logger?.warn?.('a stored connection cannot be found by its listed id; skipped', {
          connectionId: id,
        });
      }
    }
    return { ok: reports.every((r) => r.ok), connections: reports };
  }

  /**
   * A run the scheduler starts, after `beforeScheduledRun`; not started when the scheduler was
   * stopped meanwhile. `stop()` waits for the hook too, so nothing starts once it has resolved.
   */
  #scheduledRun(id: string, before: SyncEngineOptions['beforeScheduledRun']): Promise<unknown> {
    if (!before) return this.sync(id);
    const preparing = Promise.resolve().then(() => before(id));
    this.#preparing.add(preparing);
    return preparing
      .finally(() => this.#preparing.delete(preparing))
      .then(() => (this.#scheduler.started ? this.sync(id) : undefined));
  }

  /** Aborts a connection's run in flight, if any, and waits for it to end. */
  async #stopRun(connectionId: string, reason: Error): Promise<void> {
    const run = this.#running.get(connectionId);
    if (!run) return;
    run.controller.abort(reason);
    await run.promise.catch(() => undefined);
  }

  async #start(connectionId: string, signal: AbortSignal, workerId?: string): Promise<ConnectionReport> {
    await this.#init();
    const client = this.#clients.get(connectionId) ?? (await this.#clientOf(connectionId));
    const state = await this.storage.getConnection(connectionId);
    if (!state) throw new UnknownConnectionError(connectionId);
    if (!client) return this.#skipped(state, new MissingCredentialsError(connectionId));
    if (signal.aborted) return this.#skipped(state, abortReason(signal));
    return this.#run(state, client, signal, workerId);
  }

  async #run(
    state: ConnectionState,
    client: ProviderClient,
    signal: AbortSignal,
    workerId?: string,
  ): Promise<ConnectionReport> {
    const connectionId = state.id;
    const now = this.#clock.now();
    const skip = this.#skipReason(state, now);
    if (skip) return this.#skipped(state, new Error(skip));
    this.#events.emit('run:start', { connectionId });
    this.#logger?.info?.('sync started', { connectionId });
    const report = await runConnection(
      {
        connectionId,
        client,
        storage:
          workerId === undefined
            ? this.storage
            : fencedStorage(this.storage, connectionId, workerId, this.#clock.now),
        // A store without leases ignores the fence: its runs are not alone.
        leased: workerId !== undefined && isWorkQueue(this.storage),
        tuning: this.#tuning,
        clock: this.#clock,
        signal,
        logger: this.#logger,
        onProgress: (progress) => this.#events.emit('progress', progress),
        onAccountDone: (accountReport) =>
          this.#events.emit('account:done', { connectionId, report: accountReport }),
      },
      state,
    );
    this.#logger?.[report.ok ? 'info' : 'warn']?.('sync finished', {
      connectionId,
      outcome: report.outcome,
      status: report.status,
      durationMs: report.durationMs,
      added: report.accounts.reduce((n, a) => n + a.added, 0),
      modified: report.accounts.reduce((n, a) => n + a.modified, 0),
      removed: report.accounts.reduce((n, a) => n + a.removed, 0),
      issues: report.issues.map((i) => `${i.stage}${i.accountId ? ` ${i.accountId}` : ''}: ${i.message}`),
    });
    this.#events.emit('run:done', { report });
    return report;
  }

  /** A run that calls nothing, reported (and logged when it is for want of a key). */
  #skipped(state: ConnectionState, error: Error): ConnectionReport {
    const now = this.#clock.now().toISOString();
    const report: ConnectionReport = {
      connectionId: state.id,
      ok: false,
      outcome: 'skipped',
      status: state.status,
      startedAt: now,
      finishedAt: now,
      durationMs: 0,
      accounts: [],
      issues: [{ stage: 'accounts', accountId: null, message: error.message, error }],
      skippedAccounts: [],
    };
    if (error instanceof MissingCredentialsError)
      this.#logger?.warn?.('sync skipped: no API key for this connection', { connectionId: state.id });
    this.#events.emit('run:done', { report });
    return report;
  }

  #skipReason(state: ConnectionState, now: Date): string | undefined {
    if (mayCall(state, now.getTime())) return undefined;
    return state.status === 'reauth_required'
      ? `connection ${state.id} needs a new API key: ${state.statusReason ?? 'the provider refused the key'}`
      : `connection ${state.id} is rate-limited until ${state.pausedUntil}`;
  }

  /**
   * Accounts of the connection that continue one the engine no longer reads: the bank linked again
   * under a new account id, its history listed twice in the mirror. Merges nothing (see
   * `AccountSuccessor`); throws `UnknownConnectionError` for a connection it does not have.
   */
  async findAccountSuccessors(
    connectionId: string,
    options: AccountSuccessorOptions = {},
  ): Promise<AccountSuccessor[]> {
    if (impossibleId(connectionId)) throw new UnknownConnectionError(connectionId);
    await this.#init();
    if (!(await this.storage.getConnection(connectionId))) throw new UnknownConnectionError(connectionId);
    return findAccountSuccessors(this.storage, connectionId, options);
  }

  /** Reads one batch of the change feed after a cursor (a `seq`). */
  async readChanges(options: ReadChangesOptions): Promise<FeedEntry[]> {
    await this.#init();
    return this.storage.readChanges(options);
  }

  /** Streams the change feed from `after` until it is caught up. Save the last `seq` you applied as your cursor. */
  async *changes(
    options: { after?: number; connectionId?: string; batchSize?: number } = {},
  ): AsyncGenerator<FeedEntry> {
    const { batchSize = 500 } = options;
    // 0 read nothing and ended at once, as if the feed were empty.
    if (!(typeof batchSize === 'number' && batchSize >= 1))
      throw new RangeError(`batchSize must be a number of 1 or more, got ${String(batchSize)}`);
    let after = options.after ?? 0;
    for (;;) {
      const batch = await this.readChanges({
        after,
        limit: batchSize,
        ...(options.connectionId === undefined ? {} : { connectionId: options.connectionId }),
      });
      if (batch.length === 0) return;
      for (const entry of batch) {
        after = entry.seq;
        yield entry;
      }
    }
  }

  /**
   * Starts scheduled refreshes: each stored connection every `intervalMs` (± jitter). One the engine
   * has no key for is tried once per interval and reported (`MissingCredentialsError`).
   */
  start(): void {
    this.#scheduler.start();
  }

  /**
   * Stops scheduling. In-flight runs finish by default; with `abort: true` they are aborted between
   * commits, leaving the store consistent. Resolves when no run is in flight.
   */
  async stop(options: { abort?: boolean } = {}): Promise<void> {
    this.#scheduler.stop();
    // A scheduled run still in its `beforeScheduledRun` hook sees the stop when the hook ends.
    await Promise.allSettled([...this.#preparing]);
    if (options.abort)
      for (const run of this.#running.values()) run.controller.abort(new SyncAbortedError('engine stopped'));
    await Promise.allSettled([...this.#running.values()].map((r) => r.promise));
  }

  /** Whether a run of this connection is in flight. */
  isSyncing(connectionId: string): boolean {
    return this.#running.has(connectionId);
  }
}
