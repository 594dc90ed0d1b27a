/**
 * The change feed applied to the server's tables, and each run's result stored beside it, so the two
 * never disagree for long. A feed that cannot be applied (the database busy past its timeout, say) is
 * said in the run's result (`ok: false`, a `feed` issue) and applied again on every `catchUp()` (the
 * runtime's one-minute beat), as is a result that could not be stored; at start, a feed the last runs
 * left is applied and a failure does not stop the start.
 *
 * Each user's feed work (a run's apply and result, a catch-up, a start's apply) runs one after the
 * other: none reads a result another is about to replace.
 */
import type { ProviderLogger } from '@finsync/provider';
import type { ConnectionReport } from '@finsync/sync';
import { FeedApplyStopped, type FeedApplier } from './feed.js';
import { caughtUp, type SyncRuns, type UserSyncSummary } from './runs.js';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class FeedResults {
  readonly #applier: FeedApplier;
  readonly #runs: SyncRuns;
  readonly #logger: ProviderLogger;
  /**
   * Users whose feed could not be applied (or whose run's result could not be stored: the value),
   * applied again on each `catchUp()`.
   */
  readonly #behind = new Map<string, UserSyncSummary | undefined>();
  /** Each user's feed work in flight, one after the other (`#serially`). */
  readonly #work = new Map<string, Promise<void>>();

  constructor(applier: FeedApplier, runs: SyncRuns, logger: ProviderLogger) {
    this.#applier = applier;
    this.#runs = runs;
    this.#logger = logger;
  }

  /** After a run: applies its feed and stores its result, which says whether the feed was applied. */
  afterRun(report: ConnectionReport): Promise<UserSyncSummary> {
    const userId = report.connectionId;
    // Ended now, though its result waits in the queue: a run that starts meanwhile is another run.
    const run = this.#runs.ending(userId);
    return this.#serially(userId, async () => {
      let applied = 0;
      let failure: unknown;
      try {
        applied = await this.#applier.apply(userId);
      } catch (error) {
        failure = error ?? new Error('the feed could not be applied');
      }
      const { summary, stored } = await this.#runs.finish(userId, report, applied, failure, run);
      if (failure !== undefined) this.#fellBehind(userId, failure, stored ? undefined : summary);
      else if (!stored) this.#behind.set(userId, summary);
      else this.#behind.delete(userId);
      return summary;
    });
  }

  /**
   * At start: applies what the last runs left in the feed. A feed that cannot be applied is said in the
   * last result (when that can be stored) and caught up later; one an earlier start could not apply is
   * now applied, and its result says so.
   */
  atStart(userId: string): Promise<void> {
    return this.#serially(userId, async () => {
      let applied: number;
      try {
        applied = await this.#applier.apply(userId);
      } catch (error) {
        this.#fellBehind(userId, error);
        await this.#runs.feedFellBehind(userId, error).catch(() => undefined);
        return;
      }
      await this.#runs
        .feedCaughtUp(userId, applied)
        .catch((error: unknown) => this.#fellBehind(userId, error));
      // After the feed, so the accounts it adds are there; a failure waits for the account's next change.
      await this.#applier.refreshAccounts(userId).catch((error: unknown) =>
        this.#logger.warn?.('the accounts could not be refreshed from the mirror', {
          userId,
          error: message(error),
        }),
      );
    });
  }

  /** Applies the feeds that could not be applied before; each that now is clears its run's issue. */
  async catchUp(): Promise<void> {
    for (const userId of [...this.#behind.keys()]) {
      await this.#serially(userId, async () => {
        // A run that ended meanwhile may have applied it, and stored its own result.
        if (!this.#behind.has(userId)) return;
        const unsaved = this.#behind.get(userId);
        try {
          const applied = await this.#applier.apply(userId);
          // A newer result stored meanwhile (by another instance on the same database) wins over the
          // one this instance could not store.
          if (unsaved && !(await this.#runs.hasNewer(userId, unsaved)))
            await this.#runs.store(userId, caughtUp(unsaved, applied));
          else await this.#runs.feedCaughtUp(userId, applied);
          // Only once the result says so is the user no longer behind.
          this.#behind.delete(userId);
          this.#logger.info?.('the change feed is applied again', { userId, applied });
        } catch (error) {
          this.#logger.warn?.('catching up with the change feed failed; tried again within a minute', {
            userId,
            error: message(error),
          });
        }
      });
    }
  }

  /** Resolves when no user's feed work is queued or running (for a clean shutdown). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work.values()]);
  }

  /** `unsaved`: the run's result, when it could not be stored either (stored by the catch-up). */
  #fellBehind(userId: string, error: unknown, unsaved?: UserSyncSummary): void {
    this.#behind.set(userId, unsaved);
    if (error instanceof FeedApplyStopped) {
      this.#logger.info?.(
        'applying the change feed stopped for the shutdown; the next start applies the rest',
        {
          userId,
        },
      );
      return;
    }
    this.#logger.error?.('applying the change feed failed; it is applied again within a minute', {
      userId,
      error: message(error),
    });
  }

  #serially<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const next = (this.#work.get(userId) ?? Promise.resolve()).then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.#work.set(userId, settled);
    void settled.then(() => {
      if (this.#work.get(userId) === settled) this.#work.delete(userId);
    });
    return next;
  }
}
