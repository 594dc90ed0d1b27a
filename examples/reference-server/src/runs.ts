/**
 * Sync runs as the API shows them: each run has an id from its start (scheduled or asked for),
 * progress while it runs (accounts done, rows fetched), and a summary when it ends, which is stored
 * so the last result survives a restart.
 */
import { randomUUID } from 'node:crypto';
import type { ProviderLogger } from '@finsync/provider';
import type { BalanceReconciliation, ConnectionReport, SyncEngine } from '@finsync/sync';
import type { AppStore } from './store/types.js';

/** The engine's balance check of an account, in the API's spelling. */
export interface BalanceCheck {
  status: BalanceReconciliation['status'];
  basis: BalanceReconciliation['basis'];
  opening_balance: string;
  history_from: string | null;
  since: string | null;
  difference: string | null;
}

export function balanceCheck(check: BalanceReconciliation | null | undefined): BalanceCheck | null {
  if (!check) return null;
  return {
    status: check.status,
    basis: check.basis,
    opening_balance: check.openingBalance,
    history_from: check.historyFrom,
    since: check.since,
    difference: check.difference,
  };
}

export interface UserSyncSummary {
  run_id: string;
  ok: boolean;
  outcome: ConnectionReport['outcome'];
  status: ConnectionReport['status'];
  started_at: string;
  finished_at: string;
  accounts: Array<{
    account_id: string;
    name: string;
    state: string;
    fetched: number;
    added: number;
    modified: number;
    removed: number;
    /** Rows the provider listed that stand for another row (a hold beside its posted twin, an old id). */
    hidden: number;
    /** Rows that took another's place, by reason (`posted`, `id-changed`, `reverted`). */
    replaced: Record<string, number>;
    balance_check: BalanceCheck | null;
  }>;
  issues: Array<{ stage: string; account_id: string | null; error: string; message: string }>;
  /**
   * Accounts the provider listed that the engine leaves alone on every run (an id over 256
   * characters): they do not fail the run. Absent in results stored before it existed.
   */
  skipped_accounts?: Array<{ error: string; message: string }>;
  feed_entries_applied: number;
  /**
   * Accounts (the provider's ids) whose balance could not be read, in this run or in an earlier one
   * with no run since that read it: the balance kept is older than the rows synced after it. Absent
   * in results stored before it existed.
   */
  stale_balances?: string[];
}

/**
 * The accounts whose balance is older than their rows after `report`: those whose balance read failed
 * now, and those stale before that this run did not read (it failed first, or skipped them).
 */
function staleBalances(report: ConnectionReport, before: readonly string[]): string[] {
  const stale = new Set(before);
  // A balance read but not stored (the account's closing write failed) is still the old one.
  const unstored = new Set(
    report.issues.filter((i) => i.stage === 'storage' && i.accountId !== null).map((i) => i.accountId!),
  );
  for (const account of report.accounts) {
    if (account.state !== 'active')
      stale.delete(account.accountId); // no longer read: its balance is its last
    else if (account.balance === 'failed' || unstored.has(account.accountId)) stale.add(account.accountId);
    else if (account.balance === 'updated' || account.balance === 'unchanged')
      stale.delete(account.accountId);
  }
  // A balance read that failed: stale, unless it made the account gone (a 404), which is no longer read.
  const notRead = new Set(report.accounts.filter((a) => a.state !== 'active').map((a) => a.accountId));
  for (const issue of report.issues)
    if (issue.stage === 'balance' && issue.accountId !== null && !notRead.has(issue.accountId))
      stale.add(issue.accountId);
  return [...stale].sort();
}

/** The accounts whose balance is stale after `summary`; a result stored before the list existed says it by its issues. */
export function staleBalancesOf(summary: UserSyncSummary | null): string[] {
  if (!summary) return [];
  return (
    summary.stale_balances ??
    summary.issues.filter((i) => i.stage === 'balance' && i.account_id !== null).map((i) => i.account_id!)
  );
}

export interface RunningSync {
  run_id: string;
  started_at: string;
  progress: { accounts_done: number; accounts_total: number; transactions_fetched: number };
}

/** The issue of a run whose synced rows could not be applied to the server's tables. */
export const FEED_STAGE = 'feed';

export function feedIssue(error: unknown): UserSyncSummary['issues'][number] {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    stage: FEED_STAGE,
    account_id: null,
    error: 'FeedApplyError',
    message: `the synced rows could not be applied to this server's tables (${reason}); they are applied again within a minute`,
  };
}

/**
 * A result whose feed could not be applied: not `ok`, `partial` where it had succeeded (its rows reached
 * the engine, not this server's tables), with the feed's issue. `caughtUp` undoes it.
 */
export function fellBehind(summary: UserSyncSummary, error: unknown): UserSyncSummary {
  return {
    ...summary,
    ok: false,
    outcome: summary.outcome === 'success' ? 'partial' : summary.outcome,
    issues: [...summary.issues, feedIssue(error)],
  };
}

/**
 * A result whose feed has since been applied (`applied` entries more): without its feed issue, and
 * `ok` with `success` when that was its only one (a run is `partial` for the feed alone: the engine's
 * `partial` always comes with issues of its own).
 */
export function caughtUp(summary: UserSyncSummary, applied: number): UserSyncSummary {
  const issues = summary.issues.filter((i) => i.stage !== FEED_STAGE);
  const whole = issues.length === 0 && (summary.outcome === 'success' || summary.outcome === 'partial');
  return {
    ...summary,
    ok: whole,
    outcome: whole ? 'success' : summary.outcome,
    issues,
    feed_entries_applied: summary.feed_entries_applied + applied,
  };
}

export function summarize(
  runId: string,
  report: ConnectionReport,
  applied: number,
  /** `stale_balances` of the result before. */
  staleBefore: readonly string[] = [],
  /** Why the run's feed could not be applied, when it could not. */
  feedFailure?: unknown,
): UserSyncSummary {
  const summary: UserSyncSummary = {
    run_id: runId,
    ok: report.ok,
    outcome: report.outcome,
    status: report.status,
    started_at: report.startedAt,
    finished_at: report.finishedAt,
    accounts: report.accounts.map((a) => ({
      account_id: a.accountId,
      name: a.name,
      state: a.state,
      fetched: a.fetched,
      added: a.added,
      modified: a.modified,
      removed: a.removed,
      hidden: a.hidden,
      replaced: { ...a.replacements },
      balance_check: balanceCheck(a.reconciliation),
    })),
    issues: report.issues.map((i) => ({
      stage: i.stage,
      account_id: i.accountId,
      error: i.error.name,
      message: i.message,
    })),
    skipped_accounts: report.skippedAccounts.map((skipped) => ({
      error: skipped.error.name,
      message: skipped.message,
    })),
    feed_entries_applied: applied,
    stale_balances: staleBalances(report, staleBefore),
  };
  return feedFailure === undefined ? summary : fellBehind(summary, feedFailure);
}

export class SyncRuns {
  readonly #running = new Map<string, RunningSync>();
  /** Runs whose engine run has ended and whose result is being stored: still shown as running. */
  readonly #finishing = new WeakSet<RunningSync>();
  readonly #store: AppStore;
  readonly #engine: SyncEngine;
  readonly #logger: ProviderLogger;

  constructor(store: AppStore, engine: SyncEngine, logger: ProviderLogger) {
    this.#store = store;
    this.#engine = engine;
    this.#logger = logger;
    engine.on('run:start', ({ connectionId }) => void this.begin(connectionId));
    engine.on('progress', (p) => {
      const run = this.#running.get(p.connectionId);
      if (run)
        run.progress = {
          accounts_done: p.accountsDone,
          accounts_total: p.accountsTotal,
          transactions_fetched: p.transactionsFetched,
        };
    });
  }

  /** The run of this user in flight, joined, or a new one's id. */
  begin(userId: string): RunningSync {
    let run = this.#running.get(userId);
    if (!run || this.#finishing.has(run)) {
      run = {
        run_id: randomUUID(),
        started_at: new Date().toISOString(),
        progress: { accounts_done: 0, accounts_total: 0, transactions_fetched: 0 },
      };
      this.#running.set(userId, run);
    }
    return run;
  }

  /** Forgets a run that ended without a report (its `sync()` rejected): it is no longer running. */
  abandon(userId: string, run: RunningSync): void {
    if (this.#running.get(userId) === run && !this.#finishing.has(run)) this.#running.delete(userId);
  }

  running(userId: string): RunningSync | undefined {
    return this.#running.get(userId);
  }

  /** Ends the user's run: its summary is stored as the last result, then the run leaves `running`. */
  /**
   * The user's run whose engine run has just ended: shown as running until its result is stored, but
   * no longer joined by a run that starts meanwhile (that one gets an id of its own).
   */
  ending(userId: string): RunningSync {
    const run = this.begin(userId);
    this.#finishing.add(run);
    return run;
  }

  async finish(
    userId: string,
    report: ConnectionReport,
    applied: number,
    feedFailure?: unknown,
    run: RunningSync = this.ending(userId),
  ): Promise<{ summary: UserSyncSummary; stored: boolean }> {
    // The run stays shown as running until its result is stored: a status read in between would
    // otherwise see neither the run nor its result (the previous run's result instead).
    this.#finishing.add(run);
    // What stays stale comes from the result before: a run that does not reach an account says nothing of it.
    const before = await this.last(userId).catch(() => null);
    const summary = summarize(
      run.run_id,
      report,
      applied,
      await this.#stillRead(userId, before),
      feedFailure,
    );
    let stored = true;
    try {
      await this.#store.saveLastSync(userId, JSON.stringify(summary));
    } catch (error) {
      stored = false;
      this.#logger.error?.('the last sync result could not be stored', { userId, error: String(error) });
    } finally {
      if (this.#running.get(userId) === run) this.#running.delete(userId);
    }
    return { summary, stored };
  }

  /** Whether the user's stored last result ended after `summary`'s run. */
  async hasNewer(userId: string, summary: UserSyncSummary): Promise<boolean> {
    const last = await this.last(userId);
    return last !== null && last.run_id !== summary.run_id && last.finished_at > summary.finished_at;
  }

  /** Stores `summary` as the user's last result; throws when it cannot be stored. */
  async store(userId: string, summary: UserSyncSummary): Promise<void> {
    await this.#store.saveLastSync(userId, JSON.stringify(summary));
  }

  /**
   * The feed a run could not apply has been applied since (`applied` entries): its result loses the
   * feed's issue, and is `ok` again when that was its only one.
   */
  async feedCaughtUp(userId: string, applied: number): Promise<void> {
    const last = await this.last(userId);
    if (!last?.issues.some((i) => i.stage === FEED_STAGE)) return;
    await this.store(userId, caughtUp(last, applied));
  }

  /**
   * The feed could not be applied at start: the last result says so (once), as a run's would. Throws
   * when it cannot be stored.
   */
  async feedFellBehind(userId: string, error: unknown): Promise<void> {
    const last = await this.last(userId);
    if (!last || last.issues.some((i) => i.stage === FEED_STAGE)) return;
    await this.store(userId, fellBehind(last, error));
  }

  /**
   * The stale balances of `before` whose accounts are still read: one the provider has since dropped
   * from its list (gone, or inactive) keeps its last balance as what it is. Unpruned when the mirror
   * cannot be read.
   */
  async #stillRead(userId: string, before: UserSyncSummary | null): Promise<string[]> {
    const stale = staleBalancesOf(before);
    if (stale.length === 0) return stale;
    try {
      const read = new Set(
        (await this.#engine.storage.listAccounts(userId))
          .filter((a) => a.state === 'active')
          .map((a) => a.id),
      );
      return stale.filter((id) => read.has(id));
    } catch {
      return stale;
    }
  }

  async last(userId: string): Promise<UserSyncSummary | null> {
    const stored = await this.#store.lastSync(userId);
    return stored ? (JSON.parse(stored) as UserSyncSummary) : null;
  }
}
