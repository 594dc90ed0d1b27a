/** One sync run of one connection: discovery, then each account's transactions, balance and holdings. */
import {
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  addDays,
  daysBetween,
  type Account,
  type ProviderClient,
} from '@finsync/provider';
import type {
  AccountChange,
  AccountSyncState,
  ConnectionState,
  HoldingChange,
  MirrorAccount,
} from '../model.js';
import type { Storage } from '../storage/types.js';
import { diffWindow } from './diff.js';
import type { SyncProgress } from './events.js';
import { holdingRecord, keyTransactions, sameRecord } from './keys.js';
import type { EngineClock, SyncLogger, SyncTuning } from './options.js';
import type { AccountReport, ConnectionReport, SyncIssue, SyncStage } from './report.js';

export interface RunContext {
  connectionId: string;
  client: ProviderClient;
  storage: Storage;
  tuning: SyncTuning;
  clock: EngineClock;
  signal: AbortSignal;
  logger: SyncLogger | undefined;
  onProgress: (progress: SyncProgress) => void;
  onAccountDone: (report: AccountReport) => void;
}

/** Stops the whole connection's run: the key was refused, the provider rate-limited us, or the caller aborted. */
class StopRun extends Error {
  constructor(readonly issue: SyncIssue) {
    super(issue.message);
  }
}

function issue(stage: SyncStage, accountId: string | null, error: unknown): SyncIssue {
  const err = error instanceof Error ? error : new Error(String(error));
  return { stage, accountId, message: err.message, error: err };
}

function isAuthFailure(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof PermissionDeniedError;
}

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
  };
}

function accountChange(op: AccountChange['op'], record: MirrorAccount): AccountChange {
  return {
    entity: 'account',
    op,
    connectionId: record.connectionId,
    accountId: record.id,
    key: record.id,
    record,
  };
}

export async function runConnection(ctx: RunContext, connection: ConnectionState): Promise<ConnectionReport> {
  const startedAt = ctx.clock.now();
  const accounts: AccountReport[] = [];
  const issues: SyncIssue[] = [];
  let state: ConnectionState = { ...connection, lastRunAt: startedAt.toISOString() };
  let stopped = false;

  try {
    const mirror = await discoverAccounts(ctx);
    const active = mirror.filter((a) => a.state === 'active');
    const syncStates = new Map(
      (await ctx.storage.listAccountStates(ctx.connectionId)).map((s) => [s.accountId, s]),
    );
    let transactionsFetched = 0;
    for (const [index, account] of active.entries()) {
      ctx.onProgress({
        connectionId: ctx.connectionId,
        accountsDone: index,
        accountsTotal: active.length,
        transactionsFetched,
        currentAccountId: account.id,
      });
      const report = await syncAccount(ctx, account, syncStates.get(account.id), (n) => {
        transactionsFetched += n;
        ctx.onProgress({
          connectionId: ctx.connectionId,
          accountsDone: index,
          accountsTotal: active.length,
          transactionsFetched,
          currentAccountId: account.id,
        });
      });
      accounts.push(report);
      issues.push(...report.issues);
      ctx.onAccountDone(report);
    }
    ctx.onProgress({
      connectionId: ctx.connectionId,
      accountsDone: active.length,
      accountsTotal: active.length,
      transactionsFetched,
      currentAccountId: null,
    });
  } catch (error) {
    if (!(error instanceof StopRun)) throw error;
    stopped = true;
    issues.push(error.issue);
    const cause = error.issue.error;
    if (isAuthFailure(cause)) {
      state = { ...state, status: 'reauth_required', pausedUntil: null, statusReason: cause.message };
    } else if (cause instanceof RateLimitError) {
      const pauseMs = cause.retryAfterMs ?? ctx.tuning.defaultRateLimitPauseMs;
      state = {
        ...state,
        status: 'paused',
        pausedUntil: new Date(ctx.clock.now().getTime() + pauseMs).toISOString(),
        statusReason: cause.message,
      };
    }
  }

  const finishedAt = ctx.clock.now();
  const ok = issues.length === 0;
  if (ok)
    state = {
      ...state,
      status: 'active',
      pausedUntil: null,
      statusReason: null,
      lastSuccessAt: finishedAt.toISOString(),
    };
  else if (!stopped && state.status === 'paused')
    state = { ...state, status: 'active', pausedUntil: null, statusReason: null };
  await ctx.storage.apply({ changes: [], connections: [state] });

  const anyWork = accounts.length > 0;
  return {
    connectionId: ctx.connectionId,
    ok,
    outcome: ok ? 'success' : anyWork && accounts.some((a) => a.issues.length === 0) ? 'partial' : 'failed',
    status: state.status,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    accounts,
    issues,
  };
}

/** Translates a provider failure into a run stop where it concerns the whole connection. */
function stopIfConnectionWide(
  stage: SyncStage,
  accountId: string | null,
  error: unknown,
  signal: AbortSignal,
): void {
  if (signal.aborted || error instanceof RequestAbortedError)
    throw new StopRun(issue(stage, accountId, error));
  if (isAuthFailure(error) || error instanceof RateLimitError)
    throw new StopRun(issue(stage, accountId, error));
}

async function discoverAccounts(ctx: RunContext): Promise<MirrorAccount[]> {
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
  for (const account of upstream) {
    if (seen.has(account.id)) continue;
    seen.add(account.id);
    const previous = stored.get(account.id);
    const record = mirrorAccount(ctx.connectionId, account, previous);
    if (!previous) changes.push(accountChange('added', record));
    else if (!sameRecord(previous, record)) changes.push(accountChange('modified', record));
    result.push(record);
  }
  // An empty list is more likely a key whose Account Access was switched off than every account
  // closing at once: only a non-empty list can tell us an account is gone.
  if (upstream.length > 0) {
    for (const previous of stored.values()) {
      if (!seen.has(previous.id) && previous.state !== 'gone') {
        changes.push(accountChange('modified', { ...previous, state: 'gone' }));
      }
    }
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
  };
}

async function syncAccount(
  ctx: RunContext,
  account: MirrorAccount,
  previousState: AccountSyncState | undefined,
  onFetched: (count: number) => void,
): Promise<AccountReport> {
  const report: AccountReport = {
    accountId: account.id,
    name: account.name,
    state: account.state,
    fetched: 0,
    added: 0,
    modified: 0,
    removed: 0,
    shortfall: 0,
    balance: 'skipped',
    holdings: 'skipped',
    window: null,
    issues: [],
  };
  let syncState = previousState ?? newSyncState(ctx.connectionId, account.id);
  let current = account;

  const markGone = async () => {
    current = { ...current, state: 'gone' };
    report.state = 'gone';
    await ctx.storage.apply({ changes: [accountChange('modified', current)] });
  };

  // Transactions
  try {
    const result = await syncTransactions(ctx, account.id, syncState, report, onFetched);
    syncState = result;
  } catch (error) {
    stopIfConnectionWide('transactions', account.id, error, ctx.signal);
    report.issues.push(issue('transactions', account.id, error));
    if (error instanceof NotFoundError) {
      await markGone();
      return report;
    }
  }

  // Balance: a failure keeps the previous balance (never zero) and is reported.
  try {
    const balance = await ctx.client.getBalance(account.id, { signal: ctx.signal });
    const unchanged =
      current.balance !== null &&
      current.balance.amount === balance.amount &&
      current.balance.currency === balance.currency;
    if (unchanged) report.balance = 'unchanged';
    else {
      current = {
        ...current,
        currency: balance.currency ?? current.currency,
        balance: {
          amount: balance.amount,
          currency: balance.currency,
          fetchedAt: ctx.clock.now().toISOString(),
        },
      };
      await ctx.storage.apply({ changes: [accountChange('modified', current)] });
      report.balance = 'updated';
    }
  } catch (error) {
    stopIfConnectionWide('balance', account.id, error, ctx.signal);
    report.balance = 'failed';
    report.issues.push(issue('balance', account.id, error));
    if (error instanceof NotFoundError) {
      await markGone();
      return report;
    }
  }

  // Holdings, for accounts that have them; "not supported" is remembered and asked again rarely.
  const checkedAt = syncState.holdingsCheckedAt;
  const recheckDue =
    checkedAt === null ||
    ctx.clock.now().getTime() - Date.parse(checkedAt) >= ctx.tuning.holdingsRecheckDays * 86_400_000;
  if (syncState.holdingsSupported !== false || recheckDue) {
    try {
      report.holdings = await syncHoldings(ctx, account.id);
      syncState = {
        ...syncState,
        holdingsSupported: report.holdings !== 'unsupported',
        holdingsCheckedAt: ctx.clock.now().toISOString(),
      };
    } catch (error) {
      stopIfConnectionWide('holdings', account.id, error, ctx.signal);
      report.holdings = 'failed';
      report.issues.push(issue('holdings', account.id, error));
    }
  }

  syncState = {
    ...syncState,
    lastSyncedAt: ctx.clock.now().toISOString(),
    lastError: report.issues[0]?.message ?? null,
  };
  await ctx.storage.apply({ changes: [], accountStates: [syncState] });
  return report;
}

async function syncTransactions(
  ctx: RunContext,
  accountId: string,
  syncState: AccountSyncState,
  report: AccountReport,
  onFetched: (count: number) => void,
): Promise<AccountSyncState> {
  const { tuning } = ctx;
  const to = ctx.clock.today();
  const overlap = tuning.includePending ? tuning.pendingOverlapDays : tuning.overlapDays;
  const from = syncState.watermark !== null ? addDays(syncState.watermark, -overlap) : tuning.startDate;
  // A routine re-sync is one request; first syncs and gaps of over a year are walked in windows.
  const span = from === undefined ? 0 : daysBetween(from, to) + 1;
  const windowDays =
    syncState.watermark === null ? tuning.windowDays : Math.max(tuning.windowDays, Math.min(span, 366));
  report.window = { from: from ?? null, to };

  let state = syncState;
  const pages = ctx.client
    .listTransactions(accountId, {
      from,
      to,
      includePending: tuning.includePending,
      windowDays,
      signal: ctx.signal,
    })
    .pages();
  for await (const page of pages) {
    report.fetched += page.transactions.length;
    report.shortfall += page.shortfall;
    onFetched(page.transactions.length);
    const { records } = keyTransactions(ctx.connectionId, accountId, page.transactions);
    const window = { from: page.from ?? undefined, to: page.to ?? undefined };
    const [storedInWindow, storedPending] = await Promise.all([
      ctx.storage.findTransactions(ctx.connectionId, accountId, window),
      ctx.storage.findTransactions(ctx.connectionId, accountId, { pending: true }),
    ]);
    const changes = diffWindow({
      incoming: records,
      storedInWindow,
      storedPending,
      complete: page.shortfall === 0,
    });
    for (const change of changes) report[change.op] += 1;

    // The watermark moves only with the last commit of a window: a crash before it means the window
    // is read again, and the diff against what was already committed adds nothing twice.
    const windowEnd = page.to ?? to;
    state = {
      ...state,
      watermark: state.watermark !== null && state.watermark > windowEnd ? state.watermark : windowEnd,
    };
    for (let start = 0; start < changes.length || start === 0; start += tuning.batchSize) {
      const slice = changes.slice(start, start + tuning.batchSize);
      const last = start + tuning.batchSize >= changes.length;
      await ctx.storage.apply(last ? { changes: slice, accountStates: [state] } : { changes: slice });
      if (last) break;
    }
  }
  return state;
}

async function syncHoldings(ctx: RunContext, accountId: string): Promise<AccountReport['holdings']> {
  const result = await ctx.client.getHoldings(accountId, { signal: ctx.signal });
  const stored = new Map(
    (await ctx.storage.listHoldings(ctx.connectionId, accountId)).map((h) => [h.key, h]),
  );
  const changes: HoldingChange[] = [];
  const seen = new Set<string>();
  if (result.supported) {
    for (const holding of result.holdings) {
      const record = holdingRecord(ctx.connectionId, accountId, holding);
      if (seen.has(record.key)) continue;
      seen.add(record.key);
      const previous = stored.get(record.key);
      if (!previous)
        changes.push({
          entity: 'holding',
          op: 'added',
          connectionId: ctx.connectionId,
          accountId,
          key: record.key,
          record,
        });
      else if (!sameRecord(previous, record)) {
        changes.push({
          entity: 'holding',
          op: 'modified',
          connectionId: ctx.connectionId,
          accountId,
          key: record.key,
          record,
        });
      }
    }
  }
  for (const previous of stored.values()) {
    if (!seen.has(previous.key)) {
      changes.push({
        entity: 'holding',
        op: 'removed',
        connectionId: ctx.connectionId,
        accountId,
        key: previous.key,
        record: null,
      });
    }
  }
  if (changes.length > 0) await ctx.storage.apply({ changes });
  if (!result.supported) return 'unsupported';
  return changes.length > 0 ? 'updated' : 'unchanged';
}
