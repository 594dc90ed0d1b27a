/** One sync run of one connection: discovery, then each account's transactions, balance and holdings. */
import { MAX_ACCOUNT_ID_LENGTH, NotFoundError, type Account } from '@finsync/provider';
import { AccountIdTooLongError, LeaseLostError } from '../errors.js';
import type { AccountChange, AccountSyncState, Change, ConnectionState, MirrorAccount } from '../model.js';
import { openAccountTurn, type AccountTurn } from './account-turn.js';
import { movedSinceCheck, syncBalance } from './balance.js';
import { makeChange } from './changes.js';
import { fillRowCurrency } from './currency-fill.js';
import { nextConnectionState, stopEvent, type ConnectionEvent } from './connection-status.js';
import {
  StopRun,
  issue,
  stopIfConnectionWide,
  stopsTheRunWithWritesAllowed,
  type RunContext,
} from './context.js';
import { syncHoldings } from './holdings.js';
import { sameRecord } from './keys.js';
import type { AccountReport, ConnectionReport, SkippedAccount, SyncIssue } from './report.js';
import { syncTransactions, type TransactionCallbacks } from './transactions.js';
import { removeGoneHoldings } from './gone-holdings.js';
import { removeRestingHolds } from './resting-holds.js';

export type { RunContext } from './context.js';

function mirrorAccount(
  connectionId: string,
  account: Account,
  previous: MirrorAccount | undefined,
): MirrorAccount {
  const active = account.status === null || account.status === 'ACTIVE';
  return {
    connectionId,
    id: account.id,
    name: account.name,
    institutionName: account.institutionName,
    institutionLogo: account.institutionLogo,
    provider: account.provider,
    upstreamStatus: account.status,
    // `/balance` is the authoritative currency; `/accounts` often leaves it out.
    currency: previous?.balance?.currency ?? account.currency ?? previous?.currency ?? null,
    state: active ? 'active' : 'inactive',
    balance: previous?.balance ?? null,
    reconciliation: previous?.reconciliation ?? null,
  };
}

export async function runConnection(ctx: RunContext, connection: ConnectionState): Promise<ConnectionReport> {
  const startedAt = ctx.clock.now();
  const accounts: AccountReport[] = [];
  const issues: SyncIssue[] = [];
  const skippedAccounts: SkippedAccount[] = [];
  let state = nextConnectionState(connection, { type: 'run-started', at: startedAt });
  let stop: ConnectionEvent | undefined;

  try {
    const mirror = await discoverAccounts(ctx, skippedAccounts);
    const active = mirror.filter((a) => a.state === 'active');
    const resting = mirror.filter((a) => a.state !== 'active');
    const syncStates = new Map(
      (await ctx.storage.listAccountStates(ctx.connectionId)).map((s) => [s.accountId, s]),
    );
    let transactionsFetched = 0;
    const progress = (accountsDone: number, currentAccountId: string | null) =>
      ctx.onProgress({
        connectionId: ctx.connectionId,
        accountsDone,
        accountsTotal: active.length,
        transactionsFetched,
        currentAccountId,
      });
    const stateOf = (account: MirrorAccount) =>
      syncStates.get(account.id) ?? newSyncState(ctx.connectionId, account.id);
    // The next account's turn (its reads, balance and holdings), begun while this account finishes.
    let next: AccountTurn | undefined;
    try {
      for (const [index, account] of active.entries()) {
        progress(index, account.id);
        const turn = next ?? openAccountTurn(ctx, account.id, stateOf(account));
        turn.begin();
        const following = active[index + 1];
        next = following && openAccountTurn(ctx, following.id, stateOf(following));
        const upcoming = next;
        // A small read (a routine re-read) of the next account goes out beside this account's. Any
        // other waits until this account has no page left to read: its answer may be a whole history
        // or a long gap, which would arrive while this account's pages are diffed (account-turn.ts).
        if (upcoming?.small) upcoming.begin();
        const report = await syncAccount(ctx, account, stateOf(account), turn, {
          onFetched: (n) => {
            transactionsFetched += n;
            progress(index, account.id);
          },
          onReadsDone: () => upcoming?.begin(),
        });
        accounts.push(report);
        issues.push(...report.issues);
        ctx.onAccountDone(report);
      }
    } finally {
      // Set only while an account is left: the run stopped early, and its requests are aborted and released.
      await next?.discard();
    }
    progress(active.length, null);
    try {
      await removeRestingHolds(ctx, resting, (accountId) => syncStates.get(accountId));
      await removeGoneHoldings(ctx, resting, (accountId) => syncStates.get(accountId));
    } catch (error) {
      // Stopped from our side (or the lease lost) while at it: the run stops, as between accounts.
      stopIfConnectionWide('transactions', null, error, ctx.signal);
      throw error;
    }
  } catch (error) {
    if (error instanceof StopRun) {
      if (error.account) {
        accounts.push(error.account);
        issues.push(...error.account.issues);
        ctx.onAccountDone(error.account);
      } else issues.push(error.issue);
      stop = stopEvent(error.issue.error, ctx.clock.now(), ctx.tuning.defaultRateLimitPauseMs);
    } else {
      // A write that failed outside an account's transactions (the account list, an account marked
      // gone): the run ends, reported, rather than rejecting with the report of what did commit lost.
      issues.push(issue('storage', null, error));
    }
  }

  const finishedAt = ctx.clock.now();
  let ok = issues.length === 0;
  state = nextConnectionState(
    state,
    stop ?? (ok ? { type: 'run-succeeded', at: finishedAt } : { type: 'run-failed' }),
  );
  // A run we stopped ourselves (Ctrl-C, stop({ abort }), a shutdown) does not count as the last run:
  // the schedule goes on from the one before, so a connection whose first sync was stopped is due at
  // once instead of an interval later.
  if (stop?.type === 'run-aborted') state = { ...state, lastRunAt: connection.lastRunAt };
  // A worker that lost the lease has no say over the connection's state any more.
  const leaseLost = issues.some((i) => i.error instanceof LeaseLostError);
  if (!leaseLost) {
    try {
      await ctx.storage.apply({ changes: [], connections: [state] });
    } catch (error) {
      issues.push(issue('storage', null, error));
      ok = false;
    }
  }

  const anyWork = accounts.length > 0;
  // Partial when any account's rows synced: an account whose only issue is its balance or holdings
  // synced its transactions, and "failed" would say nothing was (a one-account connection, say).
  const rowsSynced = accounts.some((a) => !a.issues.some((i) => i.stage === 'transactions'));
  return {
    connectionId: ctx.connectionId,
    ok,
    outcome: ok ? 'success' : anyWork && rowsSynced ? 'partial' : 'failed',
    status: state.status,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    accounts,
    issues,
    skippedAccounts,
  };
}

/** Every account of the connection as stored after this run's look at the provider's list, gone ones included. */
async function discoverAccounts(ctx: RunContext, skipped: SkippedAccount[]): Promise<MirrorAccount[]> {
  let upstream: Account[];
  try {
    upstream = await ctx.client.listAccounts({ signal: ctx.signal });
  } catch (error) {
    stopIfConnectionWide('accounts', null, error, ctx.signal);
    throw new StopRun(issue('accounts', null, error));
  }
  const stored = new Map((await ctx.storage.listAccounts(ctx.connectionId)).map((a) => [a.id, a]));
  const changes: AccountChange[] = [];
  const result: MirrorAccount[] = [];
  const seen = new Set<string>();
  const tooLong = new Set<string>();
  for (const account of upstream) {
    if (seen.has(account.id)) continue;
    // The client cannot ask for such an account, nor every store key it. One stored before this bound
    // is not seen: it rests as gone (its holds lapse) instead of staying `active` and never synced.
    if (account.id.length > MAX_ACCOUNT_ID_LENGTH) {
      if (tooLong.has(account.id)) continue;
      tooLong.add(account.id);
      const error = new AccountIdTooLongError(account.id, MAX_ACCOUNT_ID_LENGTH);
      skipped.push({ message: error.message, error });
      ctx.logger?.warn?.('account skipped: its id is too long', {
        connectionId: ctx.connectionId,
        idLength: account.id.length,
      });
      continue;
    }
    seen.add(account.id);
    const previous = stored.get(account.id);
    const record = mirrorAccount(ctx.connectionId, account, previous);
    if (!previous) changes.push(makeChange('account', 'added', record));
    else if (!sameRecord(previous, record)) changes.push(makeChange('account', 'modified', record));
    result.push(record);
  }
  // An empty list is more likely a key whose Account Access was switched off than every account
  // closing at once: only a list with an account we can sync can tell us another is gone (a list of
  // overlong ids alone is a broken answer, as an empty one). One stored with an overlong id is gone
  // whatever the list: it can never be synced.
  const listed = seen.size > 0;
  for (const previous of stored.values()) {
    if (seen.has(previous.id)) continue;
    if (!listed && previous.state !== 'gone' && previous.id.length <= MAX_ACCOUNT_ID_LENGTH) continue;
    const gone = previous.state === 'gone' ? previous : { ...previous, state: 'gone' as const };
    if (gone !== previous) changes.push(makeChange('account', 'modified', gone));
    result.push(gone);
  }
  if (changes.length > 0) await ctx.storage.apply({ changes });
  return result;
}

function newSyncState(connectionId: string, accountId: string): AccountSyncState {
  return {
    connectionId,
    accountId,
    watermark: null,
    lastSyncedAt: null,
    lastError: null,
    holdingsSupported: null,
    holdingsCheckedAt: null,
    ledger: null,
  };
}

type AccountCallbacks = Pick<TransactionCallbacks, 'onFetched' | 'onReadsDone'>;

/** One account's turn: its balance and holdings are asked for with its transactions (account-turn.ts). */
async function syncAccount(
  ctx: RunContext,
  account: MirrorAccount,
  previousState: AccountSyncState,
  turn: AccountTurn,
  callbacks: AccountCallbacks,
): Promise<AccountReport> {
  const report = newAccountReport(account);
  try {
    return await syncAccountPhases(ctx, account, previousState, turn, callbacks, report);
  } catch (error) {
    // The run stops in this account (Ctrl-C, a refused key, a lost lease): what it committed is still
    // reported, with the reason it stopped.
    if (error instanceof StopRun) {
      report.issues.push(error.issue);
      if (!error.closingStored) unstoredClosing(report);
      error.account = report;
    }
    throw error;
  } finally {
    await turn.discard();
  }
}

function newAccountReport(account: MirrorAccount): AccountReport {
  return {
    accountId: account.id,
    name: account.name,
    state: account.state,
    fetched: 0,
    added: 0,
    modified: 0,
    removed: 0,
    shortfall: 0,
    duplicateIds: 0,
    balance: 'skipped',
    holdings: 'skipped',
    window: null,
    hidden: 0,
    replacements: { posted: 0, 'id-changed': 0, reverted: 0 },
    reconciliation: null,
    issues: [],
  };
}

async function syncAccountPhases(
  ctx: RunContext,
  account: MirrorAccount,
  previousState: AccountSyncState,
  { reads, withHoldings, answers, readsDone }: AccountTurn,
  callbacks: AccountCallbacks,
  report: AccountReport,
): Promise<AccountReport> {
  const { onFetched } = callbacks;
  // This account's balance and holdings go out by now (account-turn.ts), and the next account's reads.
  const onReadsDone = () => {
    readsDone();
    callbacks.onReadsDone?.();
  };
  let syncState = previousState;
  let current = account;
  // A run that stops (a rate limit, a refused key) after committing rows leaves a verdict stored about
  // the rows as they were: it is withdrawn first, while the run may still write, and not left saying
  // "adds up" until a later run gets as far as a check (which a refused key may not let happen for days).
  const withdrawVerdictBeforeStop = async (error: unknown) => {
    if (!stopsTheRunWithWritesAllowed(error, ctx.signal)) return;
    const unchecked = uncheckedBeside(current, report, syncState);
    if (!unchecked) return;
    try {
      await ctx.storage.apply({
        changes: [makeChange('account', 'modified', unchecked)],
        accountStates: [syncState],
      });
      current = unchecked;
    } catch {
      // The stop goes on; the ledger still says the rows moved, for the next run.
    }
  };

  const markGone = async () => {
    current = { ...current, state: 'gone' };
    report.state = 'gone';
    await ctx.storage.apply({ changes: [makeChange('account', 'modified', current)] });
  };

  // Transactions. Each commit carries the account's state: a failure half-way keeps what committed.
  try {
    syncState = await syncTransactions(ctx, account.id, syncState, reads, report, {
      currency: account.currency,
      onFetched,
      onCommitted: (committed) => {
        syncState = committed;
      },
      onReadsDone,
    });
  } catch (error) {
    await withdrawVerdictBeforeStop(error);
    stopIfConnectionWide('transactions', account.id, error, ctx.signal);
    report.issues.push(issue('transactions', account.id, error));
    if (error instanceof NotFoundError) {
      await markGone();
      return report;
    }
  }

  // The next account's reads go on while this account's balance and holdings are taken in.
  onReadsDone();

  // The balance and holdings write nothing themselves: their changes go in the account's closing
  // write, with its state, one commit instead of up to three (a routine re-sync of an account whose
  // balance moved: two writes where there were three).
  const closing: Change[] = [];

  // Balance: a failure keeps the previous balance (never zero) and is reported. The rows are
  // compared with it only when they synced cleanly: a half-synced history proves nothing.
  try {
    // Nor when the reads have not begun (a `startDate` still to come): the balance already counts rows
    // dated before it, which no read will bring, and an anchor taken now would miss by their sum.
    const notBegun =
      report.window !== null && report.window.from !== null && report.window.from > report.window.to;
    const check = report.issues.length === 0 && report.shortfall === 0 && !notBegun;
    const changed = report.added + report.modified + report.removed > 0;
    const holds = () => reads.storedHolds.current();
    const outcome = await syncBalance(
      ctx,
      current,
      syncState,
      { check, changed, holds },
      answers().balance(),
    );
    // The rows were keyed without the account's currency, which this balance gives: the rows listed
    // without one take it. Should that fail, the balance is not kept either, so the next run does it.
    if (account.currency === null && outcome.account.currency !== null)
      await fillRowCurrency(ctx, account.id, outcome.account.currency, (rows) => (report.modified += rows));
    current = outcome.account;
    syncState = outcome.state;
    report.balance = outcome.result;
    if (outcome.change) closing.push(outcome.change);
    report.reconciliation = check ? current.reconciliation : null;
  } catch (error) {
    await withdrawVerdictBeforeStop(error);
    stopIfConnectionWide('balance', account.id, error, ctx.signal);
    report.balance = 'failed';
    report.issues.push(issue('balance', account.id, error));
    if (error instanceof NotFoundError) {
      await markGone();
      return report;
    }
    // The verdict stored was about the rows as they were: beside rows this run moved it says nothing
    // (a `balanced` kept while the balance cannot be fetched read as "adds up" for as long).
    const unchecked = uncheckedBeside(current, report, syncState);
    if (unchecked) {
      current = unchecked;
      closing.push(makeChange('account', 'modified', current));
    }
  }

  if (withHoldings) {
    try {
      const outcome = await syncHoldings(ctx, account.id, answers().holdings(), syncState.holdingsCheckedAt);
      report.holdings = outcome.result;
      closing.push(...outcome.changes);
      syncState = {
        ...syncState,
        holdingsSupported: report.holdings !== 'unsupported',
        holdingsCheckedAt: ctx.clock.now().toISOString(),
      };
    } catch (error) {
      report.holdings = 'failed';
      // Stopped here, the run has the balance and its verdict in hand: they are stored before it
      // stops (else the verdict is withdrawn), not left behind about the rows before this run's.
      // The account's sync ends here too, so its state says when and why, as the closing write
      // below would: the balance stored was read by this run, whose time is `lastSyncedAt`.
      let closingStored = false;
      if (stopsTheRunWithWritesAllowed(error, ctx.signal)) {
        const stopped = endedState(ctx, syncState, report, issue('holdings', account.id, error));
        try {
          await ctx.storage.apply({ changes: closing, accountStates: [stopped] });
          closingStored = true;
        } catch {
          await withdrawVerdictBeforeStop(error);
        }
      }
      try {
        stopIfConnectionWide('holdings', account.id, error, ctx.signal);
      } catch (stop) {
        if (stop instanceof StopRun) stop.closingStored = closingStored;
        throw stop;
      }
      report.issues.push(issue('holdings', account.id, error));
    }
  }

  syncState = endedState(ctx, syncState, report);
  try {
    await ctx.storage.apply({ changes: closing, accountStates: [syncState] });
  } catch (error) {
    // What committed stays (each commit carries the account's state); the balance and holdings are
    // taken again next run. The other accounts go on.
    stopIfConnectionWide('storage', account.id, error, ctx.signal);
    report.issues.push(issue('storage', account.id, error));
    unstoredClosing(report);
  }
  return report;
}

/**
 * The account's state as its sync ends now: when, and the message of its first issue (`stop`'s
 * when the run stops on an issue not reported yet), or none.
 */
function endedState(
  ctx: RunContext,
  state: AccountSyncState,
  report: AccountReport,
  stop?: SyncIssue,
): AccountSyncState {
  return {
    ...state,
    lastSyncedAt: ctx.clock.now().toISOString(),
    lastError: (report.issues[0] ?? stop)?.message ?? null,
  };
}

/**
 * The account with its verdict set back to `unchecked`, when its rows moved past it: in this run, or
 * in one that stopped before its check (the ledger says so).
 */
function uncheckedBeside(
  account: MirrorAccount,
  report: AccountReport,
  state: AccountSyncState,
): MirrorAccount | undefined {
  const verdict = account.reconciliation;
  const moved = report.added + report.modified + report.removed > 0 || movedSinceCheck(state);
  if (!moved || !verdict || verdict.status === 'unchecked') return undefined;
  return { ...account, reconciliation: { ...verdict, status: 'unchecked', since: null, difference: null } };
}

/**
 * The account's closing write, which carries a new balance, its check and new holdings, did not
 * happen (the run stopped first, or the write failed): the report says what the mirror holds, so
 * what was read and not stored is not taken this run.
 */
function unstoredClosing(report: AccountReport): void {
  if (report.balance === 'updated') report.balance = 'failed';
  if (report.holdings === 'updated') report.holdings = 'failed';
  report.reconciliation = null;
}
