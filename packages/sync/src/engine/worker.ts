/**
 * One of many sync processes sharing one storage. Work is found in the storage, not configured: a
 * worker claims due connections under a lease, syncs them with every write fenced by that lease,
 * renews the lease while it works, and releases it with the next run time. A worker that dies stops
 * renewing; its leases expire and other workers take the connections over from the last commit.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { ProviderClient } from '@finsync/provider';
import { guardedLogger } from '@finsync/internals/http';
import { LeaseLostError, SyncAbortedError, UnknownConnectionError } from '../errors.js';
import { MAX_LEASE_MS, isWorkQueue, type Storage, type WorkQueue } from '../storage/types.js';
import { SyncEngine, type CredentialSource, type SyncEngineOptions } from './engine.js';
import type { SyncEventName, SyncListener } from './events.js';
import type { ConnectionReport } from './report.js';

/**
 * What `new SyncWorker(...)` takes: the engine's options (tuning, schedule, logger, clock), with a
 * storage that is also a {@link WorkQueue} and a credentials source, which are required here.
 */
export interface SyncWorkerOptions extends Omit<SyncEngineOptions, 'storage' | 'concurrency'> {
  /** A storage that distributes work, such as `PostgresStorage`. */
  storage: Storage & WorkQueue;
  /**
   * Looks up a connection's provider credentials (e.g. decrypts its stored key), asked afresh before
   * each run (another process may have stored a new key); `undefined` reports the run as skipped.
   */
  credentials: CredentialSource;
  /** Unique per process; default `<hostname>-<pid>-<random>`. */
  workerId?: string | undefined;
  /** Connections this worker syncs at once. Default 2. */
  concurrency?: number | undefined;
  /** How long a lease lasts without renewal. Default 60 000 ms (at most a day); renewed every third of it. */
  leaseMs?: number | undefined;
  /** How often an idle worker looks for due work. Default 5 000 ms. */
  pollIntervalMs?: number | undefined;
}

/** What `SyncWorker.onRun` listeners receive after each connection the worker finished or lost. */
export interface WorkerRunEvent {
  /** The connection that was run. */
  connectionId: string;
  /** The worker that ran it. */
  workerId: string;
  /** The run's report, when the run returned one (a skipped or failed run included). */
  report?: ConnectionReport;
  /** Set instead of `report` when the run threw (a lost lease, say). */
  error?: Error;
}

/**
 * A sync process that takes its work from a shared storage (see {@link WorkQueue}), for running many
 * processes against one database: it claims due connections under a lease, syncs them with an
 * engine of its own, and hands them back with their next run time. Call `start()` to begin.
 */
export class SyncWorker {
  /**
   * This worker's id. Its leases are written as `{workerId}#{instance}#{claim}`, one owner a claim
   * (see `#poll`); `instance` is drawn per `SyncWorker`, so a worker restarted under the same id never
   * writes an owner of the one before.
   */
  readonly workerId: string;
  /** The engine the worker runs connections with: for its events, or to read the storage. */
  readonly engine: SyncEngine;
  readonly #storage: Storage & WorkQueue;
  readonly #options: SyncWorkerOptions;
  readonly #logger: ReturnType<typeof guardedLogger>;
  readonly #active = new Map<string, Promise<void>>();
  /** Claims made so far: each claim's leases have an owner of their own. */
  #claims = 0;
  /** Drawn once per instance, so that owners stay unique across instances sharing a `workerId`. */
  readonly #instance = randomUUID().slice(0, 8);
  readonly #listeners = new Set<(event: WorkerRunEvent) => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The poll in flight (a claim may be waiting on the storage); there is at most one. */
  #polling: Promise<void> | undefined;
  /** A poll was asked for while one was in flight: it runs when that one ends. */
  #pollAgain = false;
  #running = false;
  #stopController = new AbortController();

  constructor(options: SyncWorkerOptions) {
    if (!isWorkQueue(options.storage))
      throw new TypeError('SyncWorker needs a storage that implements WorkQueue');
    const { leaseMs = 60_000, pollIntervalMs = 5_000 } = options;
    if (!(leaseMs > 0 && leaseMs <= MAX_LEASE_MS))
      throw new RangeError(`leaseMs must be positive and at most a day (${MAX_LEASE_MS}), got ${leaseMs}`);
    if (!(pollIntervalMs > 0 && pollIntervalMs <= 2 ** 31 - 1))
      throw new RangeError(`pollIntervalMs must be a positive number of milliseconds, got ${pollIntervalMs}`);
    this.#options = options;
    this.#logger = guardedLogger(options.logger);
    this.#storage = options.storage;
    this.workerId = options.workerId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.engine = new SyncEngine({ ...options, storage: options.storage });
  }

  /** Listens to an event of this worker's runs, as `worker.engine.on` does. Returns the unsubscribe function. */
  on<E extends SyncEventName>(event: E, listener: SyncListener<E>): () => void {
    return this.engine.on(event, listener);
  }

  /** Called after each connection this worker finished (or lost). */
  onRun(listener: (event: WorkerRunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get #leaseMs(): number {
    return this.#options.leaseMs ?? 60_000;
  }

  #now(): Date {
    return this.#options.clock?.now?.() ?? new Date();
  }

  /** Starts polling the storage for due connections. Calling it while running does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopController = new AbortController();
    // Every run in flight listens for the stop: `concurrency` listeners is expected, not a leak.
    setMaxListeners(0, this.#stopController.signal);
    this.#schedule(0);
  }

  /** Stops claiming; in-flight runs finish, or with `abort: true` stop between commits. Leases are released. */
  async stop(options: { abort?: boolean } = {}): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    if (options.abort) this.#stopController.abort(new SyncAbortedError('worker stopped'));
    // A claim still in flight: what it claims is released, not run (see `#poll`).
    await this.#polling;
    await Promise.allSettled([...this.#active.values()]);
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      // One poll at a time: two would each see the same runs in flight and claim room for both, and
      // `stop()` could wait for one while the other still claims.
      if (this.#polling) {
        this.#pollAgain = true;
        return;
      }
      this.#polling = this.#poll().finally(() => {
        this.#polling = undefined;
        if (this.#pollAgain) {
          this.#pollAgain = false;
          this.#schedule(0);
        }
      });
    }, delayMs);
  }

  /** Claims what this worker has room for; polls again when a run ends or after the poll interval. */
  async #poll(): Promise<void> {
    if (!this.#running) return;
    const room = (this.#options.concurrency ?? 2) - this.#active.size;
    let claimed: string[] = [];
    // One owner a claim, not one a worker: a lease revoked for new credentials (`revokeLease`) and
    // claimed again by this same worker must fence out the run still going with the old key.
    // The instance's part keeps an owner unique when a restarted worker reuses its id: else its first
    // claim would be `worker-1#1` again, and the stalled run of the one before would pass the fence.
    const owner = `${this.workerId}#${this.#instance}#${(this.#claims += 1)}`;
    if (room > 0) {
      try {
        claimed = await this.#storage.claimDue(owner, {
          limit: room,
          leaseMs: this.#leaseMs,
          now: this.#now(),
        });
      } catch (error) {
        this.#logger?.error?.('claiming work failed', {
          workerId: this.workerId,
          error: String(error),
        });
      }
    }
    // Stopped while claiming: nothing is started that `stop()` would not wait for, and the leases go
    // back at once, due now, so that another worker (or this one restarted) need not wait them out.
    if (!this.#running) {
      const now = this.#now();
      await Promise.all(claimed.map((id) => this.#release(id, owner, now)));
      return;
    }
    for (const connectionId of claimed) {
      // Claimed again while its run from an earlier claim still goes (its lease was revoked): that
      // run can commit nothing more, and the engine would join it, so this run waits for it to end.
      const earlier = this.#active.get(connectionId);
      const run = (earlier ?? Promise.resolve())
        .then(() => this.#runOne(connectionId, owner))
        .finally(() => {
          if (this.#active.get(connectionId) === run) this.#active.delete(connectionId);
          this.#schedule(0);
        });
      this.#active.set(connectionId, run);
    }
    this.#schedule(
      claimed.length > 0
        ? (this.#options.pollIntervalMs ?? 5_000) / 5
        : (this.#options.pollIntervalMs ?? 5_000),
    );
  }

  async #runOne(connectionId: string, owner: string): Promise<void> {
    // Stopped with `abort` while this run waited behind an earlier one of the same connection: it does
    // not start, and its lease goes back due now.
    if (this.#stopController.signal.aborted) {
      await this.#release(connectionId, owner, this.#now());
      return;
    }
    const controller = new AbortController();
    const stop = () => controller.abort(this.#stopController.signal.reason);
    this.#stopController.signal.addEventListener('abort', stop, { once: true });
    const renew = setInterval(() => {
      void this.#storage
        .renewLease(connectionId, owner, { leaseMs: this.#leaseMs, now: this.#now() })
        .then((held) => {
          if (!held) controller.abort(new LeaseLostError(connectionId, owner));
        })
        .catch(() => undefined);
    }, this.#leaseMs / 3);
    const event: WorkerRunEvent = { connectionId, workerId: this.workerId };
    try {
      const resolved = await this.#options.credentials(connectionId);
      // No key now: forget any client from an earlier run, and the run is reported as skipped.
      if (!resolved) await this.engine.removeConnection(connectionId);
      // Never `addConnection`: that would store again a connection removed since the claim, unfenced,
      // and the next claim would mirror it all again with the key of someone who deleted it.
      else
        this.engine.useClient(
          resolved instanceof ProviderClient
            ? { id: connectionId, client: resolved }
            : { id: connectionId, ...resolved },
        );
      event.report = await this.engine.sync(connectionId, { signal: controller.signal, workerId: owner });
    } catch (error) {
      event.error = error instanceof Error ? error : new Error(String(error));
      // A connection removed while this worker held it has nothing to run: not worth a warning.
      if (!(error instanceof UnknownConnectionError))
        this.#logger?.warn?.('worker run ended with an error', {
          connectionId,
          workerId: this.workerId,
          error: event.error.message,
        });
    } finally {
      clearInterval(renew);
      this.#stopController.signal.removeEventListener('abort', stop);
      // The next run asks for credentials afresh, so the client need not outlive this one: a worker
      // that serves tens of thousands of connections would otherwise keep a client (~13 KiB) for
      // every connection it ever synced.
      await this.engine.removeConnection(connectionId).catch(() => undefined);
    }
    // A run this worker's own stop cut short is due now, for the next worker (or this one restarted).
    const nextRunAt = this.#stopController.signal.aborted ? this.#now() : this.#nextRunAt(event.report);
    await this.#release(connectionId, owner, nextRunAt);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is not the run's.
      }
    }
  }

  /** Hands the lease back. A failure is logged: the lease then runs out, and the connection is due again. */
  async #release(connectionId: string, owner: string, nextRunAt: Date): Promise<void> {
    await this.#storage.releaseLease(connectionId, owner, nextRunAt).catch((error: unknown) => {
      this.#logger?.warn?.('releasing a lease failed; it will run out instead', {
        connectionId,
        workerId: this.workerId,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }

  #nextRunAt(report: ConnectionReport | undefined): Date {
    const interval = this.#options.intervalMs ?? 6 * 3_600_000;
    const jitter = (Math.random() * 2 - 1) * (this.#options.jitter ?? 0.1) * interval;
    const now = this.#now().getTime();
    // A failed or lost run is retried sooner than a full interval, but not in a tight loop.
    const base = report?.ok ? interval + jitter : Math.min(interval, 5 * 60_000);
    return new Date(now + base);
  }
}
