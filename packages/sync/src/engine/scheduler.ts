import type { ConnectionState } from '../model.js';
import { callsResume } from './connection-status.js';
import type { EngineClock, SyncLogger } from './options.js';

/**
 * When `SyncEngine.start()` runs each connection (and when a `SyncWorker` makes it due again). Pass
 * these fields to the engine's or worker's constructor; each is checked there.
 */
export interface ScheduleOptions {
  /** Time between runs of one connection. Default 6 hours (the provider refreshes from banks about daily). */
  intervalMs: number;
  /** Fraction of the interval by which each run is moved earlier or later at random. Default 0.1. */
  jitter: number;
  /** Connections synced at the same time by the scheduler. Default 2. */
  concurrency: number;
}

/**
 * The longest interval between runs: ten years. A next run time past it was no date at all (`1e16` ms
 * from now is an Invalid Date), so a worker could not hand its lease back and ran the connection
 * again each time the lease ran out.
 */
export const MAX_INTERVAL_MS = 10 * 365 * 24 * 3_600_000;

/**
 * The schedule with its defaults, checked: an interval of 0 or less had the scheduler sync without
 * pause (some 1,200 provider requests in two seconds), and NaN turned it off in silence.
 */
export function checkedSchedule(options: Partial<ScheduleOptions>): ScheduleOptions {
  const { intervalMs = 6 * 3_600_000, jitter = 0.1, concurrency = 2 } = options;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0 && intervalMs <= MAX_INTERVAL_MS))
    throw new RangeError(
      `intervalMs must be a positive number of milliseconds, at most ten years (${MAX_INTERVAL_MS}), got ${intervalMs}`,
    );
  if (!(jitter >= 0 && jitter < 1))
    throw new RangeError(`jitter must be within 0 (inclusive) and 1, got ${jitter}`);
  if (!(Number.isSafeInteger(concurrency) && concurrency >= 1))
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  return { intervalMs, jitter, concurrency };
}

interface SchedulerDeps extends ScheduleOptions {
  clock: EngineClock;
  run: (connectionId: string) => Promise<unknown>;
  connections: () => Promise<ConnectionState[]>;
  logger: SyncLogger | undefined;
}

/**
 * Decides when each connection is due: `lastRunAt + interval ± jitter`, or `pausedUntil` for a
 * rate-limited one; never for one waiting for re-auth. One timer wakes it for the earliest due time.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #jitterOf = new Map<string, number>();
  readonly #active = new Set<string>();
  /**
   * When each connection was last tried. A run that calls nothing (no key; paused) does not move
   * `lastRunAt`, and without this it would be retried at once, for ever.
   */
  readonly #triedAt = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.poke();
  }

  /** Between `start()` and `stop()`. */
  get started(): boolean {
    return this.#running;
  }

  stop(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Re-plans now (a connection was added, its key changed, or a run ended). */
  poke(): void {
    if (!this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), 0);
    this.#timer.unref?.();
  }

  #dueAt(state: ConnectionState): number | undefined {
    const resume = callsResume(state);
    if (resume === 'on-new-key') return undefined;
    if (resume !== 'on-schedule') return resume;
    const tried = this.#triedAt.get(state.id);
    const lastRun = Math.max(
      state.lastRunAt === null ? -Infinity : Date.parse(state.lastRunAt),
      tried ?? -Infinity,
    );
    if (lastRun === -Infinity) return 0;
    let jitter = this.#jitterOf.get(state.id);
    if (jitter === undefined) {
      jitter = (Math.random() * 2 - 1) * this.#deps.jitter * this.#deps.intervalMs;
      this.#jitterOf.set(state.id, jitter);
    }
    return lastRun + this.#deps.intervalMs + jitter;
  }

  async #tick(): Promise<void> {
    if (!this.#running) return;
    const now = this.#deps.clock.now().getTime();
    let next = Number.POSITIVE_INFINITY;
    try {
      for (const state of await this.#deps.connections()) {
        if (this.#active.has(state.id)) continue;
        const due = this.#dueAt(state);
        if (due === undefined) continue;
        if (due <= now && this.#active.size < this.#deps.concurrency) {
          this.#active.add(state.id);
          this.#triedAt.set(state.id, now);
          this.#jitterOf.delete(state.id);
          void this.#deps
            .run(state.id)
            .catch((error: unknown) =>
              this.#deps.logger?.error?.('scheduled sync failed', {
                connectionId: state.id,
                error: String(error),
              }),
            )
            .finally(() => {
              this.#active.delete(state.id);
              this.poke();
            });
        } else if (due > now) {
          next = Math.min(next, due);
        }
      }
    } catch (error) {
      this.#deps.logger?.error?.('scheduler could not read connections', { error: String(error) });
      next = now + 60_000;
    }
    if (!this.#running || next === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(() => void this.#tick(), Math.min(Math.max(0, next - now), 2 ** 31 - 1));
    this.#timer.unref?.();
  }
}
