/**
 * What the page shows, gathered on the server in one answer: the accounts with their balance and
 * freshness, the last run, the latest transactions and a balance chart. Money is formatted here with
 * the API's own formatter, so the browser only places text.
 */
import { addDays, currencyScale, decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/provider';
import type { ServerRuntime } from '../runtime.js';
import { formatMoney } from '../money-format.js';
import { renderTransactions } from '../render.js';
import { isMoneyIn, moneyInPositive } from '../sign-convention.js';
import type { AccountSyncState, MirrorAccount } from '@finsync/sync';
import type { AccountRecord, Scope } from '../store/types.js';

/** The chart covers at most this many days, ending today. */
const CHART_DAYS = 90;
/** Rows read for one chart at most; past this the chart starts at the end of the last day left out. */
const CHART_MAX_ROWS = 5_000;
const LATEST = 20;
export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 160;

export interface Chart {
  account_id: string;
  account_name: string;
  width: number;
  height: number;
  /** SVG path data of the line, and of the area under it. */
  line: string;
  area: string;
  from: string;
  to: string;
  min: string;
  max: string;
  first: string;
  last: string;
  days: number;
}

type Status = Awaited<ReturnType<ServerRuntime['status']>>;

/** The API's money format, with a real minus sign: `−£2,134.86`. */
const show = (amount: string, currency: string) => formatMoney(amount, currency).replace(/^-/, '−');

/** Without a currency from the provider, ISO's "no currency" (`XXX`), as its transactions are stored: not dollars. */
const money = (amount: string | null, currency: string | null) =>
  amount === null ? null : show(amount, currency ?? 'XXX');

/** A signed amount with its sign always shown: `+$12.50`, `−$3.00`. */
function signed(amount: string, currency: string): string {
  const text = formatMoney(amount.replace(/^-/, ''), currency);
  return amount.startsWith('-') ? `−${text}` : `+${text}`;
}

/**
 * End-of-day balances of an account from `from` to `to`: today's balance, and before it the balance
 * less what each later transaction changed (stored amounts are positive for money out: see
 * sign-convention.ts).
 */
export function balanceSeries(
  balance: bigint,
  rows: Array<{ date: string; amount: bigint }>,
  from: string,
  to: string,
): Array<{ date: string; balance: bigint }> {
  const byDate = new Map<string, bigint>();
  for (const row of rows) byDate.set(row.date, (byDate.get(row.date) ?? 0n) + row.amount);
  // Money that moved after `to` (a date the bank put ahead) is undone first.
  let running = balance;
  for (const [date, amount] of byDate) if (date > to) running += amount;
  const series: Array<{ date: string; balance: bigint }> = [];
  for (let date = to; date >= from; date = addDays(date, -1)) {
    series.push({ date, balance: running });
    running += byDate.get(date) ?? 0n;
  }
  return series.reverse();
}

/** The SVG path of a series, scaled into the chart box. */
export function chartPaths(values: number[], width = CHART_WIDTH, height = CHART_HEIGHT) {
  const pad = 6;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const x = (i: number) => pad + (values.length === 1 ? 0 : (i * (width - 2 * pad)) / (values.length - 1));
  const y = (v: number) => (max === min ? height / 2 : pad + ((max - v) * (height - 2 * pad)) / (max - min));
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  const line = `M${points.join('L')}`;
  const area = `${line}L${x(values.length - 1).toFixed(1)},${height}L${x(0).toFixed(1)},${height}Z`;
  return { line, area };
}

/** The engine's record of an account and its sync state (its balance check's ledger). */
interface EngineAccount {
  mirrored: MirrorAccount | undefined;
  state: AccountSyncState | undefined;
}

async function engineAccount(runtime: ServerRuntime, userId: string, account: AccountRecord) {
  const { storage } = runtime.engine;
  const [mirrored, states] = await Promise.all([
    storage.listAccounts(userId),
    storage.listAccountStates(userId),
  ]);
  const id = account.provider_account_id;
  return { mirrored: mirrored.find((a) => a.id === id), state: states.find((s) => s.accountId === id) };
}

async function chartOf(
  runtime: ServerRuntime,
  userId: string,
  account: AccountRecord,
  /** What the provider's balance counts, as the engine's balance check found: pending rows or not. */
  basis: 'posted' | 'posted-and-pending',
  { mirrored }: EngineAccount,
) {
  const storage = runtime.engine.storage;
  // The balance the rows are walked back from is the mirror's, as the rows are: this server's copy
  // moves only once a run's feed is applied, so between a run's commits and that (or after an apply
  // that failed) the two were apart by what the run added.
  const currency = mirrored?.balance?.currency ?? mirrored?.currency ?? account.currency;
  if (!mirrored?.balance || currency === null) return null;
  const scale = currencyScale(currency);
  const today = runtime.today();
  const windowStart = addDays(today, -(CHART_DAYS - 1));
  // The rows the bank's balance counts are the provider's, as it lists them: the engine's mirror,
  // not this server's tables, where a user may have added rows, changed amounts or dates, or deleted
  // rows (which the bank still counts). Pending ones only when the balance's basis has them.
  // Read a day at a time back from today (rows dated later first), up to CHART_MAX_ROWS, stopping
  // before a day that would pass it: the read is bounded (one read of the 90 days held every row in
  // memory, 230 MB at 300,000 rows, to keep 5,000), and the chart starts at a day's end whose
  // balance every row after it explains (a cut inside a day made the first point wrong by that
  // day's rows left out).
  const pending = basis === 'posted' ? { pending: false } : {};
  const moves: Array<{ date: string; amount: bigint }> = [];
  let read = 0;
  let cutBefore: string | undefined;
  const take = (rows: Awaited<ReturnType<typeof storage.findTransactions>>) => {
    read += rows.length;
    // Rows in another currency than the account's cannot be added to its balance. The mirror signs
    // amounts as the bank does (negative is money out): walking back, money out is added back.
    for (const r of rows)
      if ((r.currency ?? currency) === currency)
        moves.push({ date: r.date, amount: -decimalToMinorUnits(r.amount, scale) });
  };
  take(
    await storage.findTransactions(userId, account.provider_account_id, {
      from: addDays(today, 1),
      ...pending,
    }),
  );
  for (let day = today; day >= windowStart; day = addDays(day, -1)) {
    const rows = await storage.findTransactions(userId, account.provider_account_id, {
      from: day,
      to: day,
      ...pending,
    });
    if (read + rows.length > CHART_MAX_ROWS) {
      cutBefore = day;
      break;
    }
    take(rows);
  }
  const earliest = moves.reduce((d, m) => (m.date < d ? m.date : d), today);
  const from =
    cutBefore !== undefined ? cutBefore : moves.length === 0 ? addDays(today, -29) : addDays(earliest, -1);
  const series = balanceSeries(
    decimalToMinorUnits(mirrored.balance.amount, scale),
    moves,
    from < windowStart ? windowStart : from,
    today,
  );
  const values = series.map((p) => Number(p.balance));
  const label = (units: bigint) => show(minorUnitsToDecimal(units, scale), currency);
  const balances = series.map((p) => p.balance);
  return {
    account_id: account.id,
    account_name: account.name,
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    ...chartPaths(values),
    from: series[0]!.date,
    to: series[series.length - 1]!.date,
    min: label(balances.reduce((a, b) => (b < a ? b : a))),
    max: label(balances.reduce((a, b) => (b > a ? b : a))),
    first: label(balances[0]!),
    last: label(balances[balances.length - 1]!),
    days: series.length,
  } satisfies Chart;
}

/** A decimal string without the zeros that do not change its value: `12.50` → `12.5`, `-0.0` → `0`. */
function plainDecimal(value: string): string {
  const trimmed = value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
  return /^-0*$/.test(trimmed) ? '0' : trimmed;
}

/**
 * Whether the engine's balance of the account may count rows its mirror does not hold: it was taken
 * without being compared with the rows (no check, or `unchecked`), and it or the rows moved since the
 * last reading the engine anchored its check on (`ledger.anchor`), so nothing says the two agree. A
 * first sync's reading is its own anchor: charted. Anchors stored by earlier versions name neither
 * reading; one that was checked beside an `unchecked` verdict says the same.
 */
function rowsBehindBalance(
  mirrored: MirrorAccount | undefined,
  state: AccountSyncState | undefined,
): boolean {
  const reconciliation = mirrored?.reconciliation;
  if (!mirrored?.balance) return false;
  if (!reconciliation) return true;
  if (reconciliation.status !== 'unchecked') return false;
  const anchor = state?.ledger?.anchor;
  if (!anchor) return true;
  if (anchor.balance === undefined || anchor.postedTotal === undefined) return anchor.checked !== false;
  return (
    plainDecimal(anchor.balance) !== plainDecimal(mirrored.balance.amount) ||
    plainDecimal(anchor.postedTotal) !== plainDecimal(state!.ledger!.postedTotal)
  );
}

/**
 * Why the account's chart cannot be drawn now, or undefined. Walked back from a balance through rows
 * of another moment, every point would be off by what the rows between the two moved.
 */
function whyNoChart(status: Status, account: AccountRecord, engine: EngineAccount): string | undefined {
  if (status.accounts.find((a) => a.id === account.id)?.balance_stale)
    return "A sync could not read this account's balance, and none has since, so the one shown is older than its rows. The chart is drawn again once a sync reads it.";
  // A run commits an account's rows before its balance: mid-run the two are apart.
  if (status.connection?.syncing) return 'A sync is running: the chart is drawn once it has ended.';
  if (rowsBehindBalance(engine.mirrored, engine.state))
    return "A sync took this account's balance but could not read all of its transactions, so the balance may count rows not shown here. The chart is drawn again once a sync reads them.";
  return undefined;
}

function lastRun(status: Status, names: Map<string, string>) {
  const run = status.last_sync;
  if (!run) return null;
  const sum = (field: 'fetched' | 'added' | 'modified' | 'removed') =>
    run.accounts.reduce((total, a) => total + a[field], 0);
  return {
    ok: run.ok,
    outcome: run.outcome,
    finished_at: run.finished_at,
    fetched: sum('fetched'),
    added: sum('added'),
    modified: sum('modified'),
    removed: sum('removed'),
    issues: [
      ...run.issues.map((i) => ({
        stage: i.stage,
        // The issue names the provider's account; the page shows its name.
        account: i.account_id ? (names.get(i.account_id) ?? null) : null,
        message: i.message,
      })),
      // Not the run's issues (it succeeded), but the page's reader should know an account is missing.
      ...(run.skipped_accounts ?? []).map((skipped) => ({
        stage: 'skipped account',
        account: null,
        message: skipped.message,
      })),
    ],
  };
}

export async function overview(
  runtime: ServerRuntime,
  principal: { userId: string; scope: Scope },
  selected: string | undefined,
) {
  const { userId } = principal;
  const [user, status, records, latest] = await Promise.all([
    runtime.store.findUser(userId),
    runtime.status(userId),
    runtime.store.listAccounts(userId),
    runtime.store.findTransactions(userId, {}, { limit: LATEST, offset: 0 }),
  ]);
  const pending = await runtime.store.pendingAmong(
    userId,
    latest.rows.map((r) => r.id),
  );
  const providerNames = new Map(records.map((r) => [r.provider_account_id, r.name]));
  const names = new Map(records.map((r) => [r.id, r.name]));
  // The chosen account, else the first everyday account with a balance, else any with one.
  const account =
    records.find((r) => r.id === selected?.toLowerCase()) ??
    records.find((r) => r.balance !== null && r.account_type === 'depository') ??
    records.find((r) => r.balance !== null) ??
    records[0];
  const engine = account && (await engineAccount(runtime, userId, account));
  const chartNote = account && engine && whyNoChart(status, account, engine);
  const rendered = (await renderTransactions(runtime.store, latest.rows)) as Array<{
    id: string;
    date: string;
    name: string;
    account: { name: string };
    category: { name: string } | null;
  }>;
  return {
    user: { name: user?.name ?? '' },
    can_sync: principal.scope === 'read_write',
    provider_configured: status.provider_configured,
    connection: status.connection && {
      status: status.connection.status,
      status_reason: status.connection.status_reason,
      last_run_at: status.connection.last_run_at,
      last_success_at: status.connection.last_success_at,
      syncing: status.connection.syncing,
    },
    last_sync: lastRun(status, providerNames),
    accounts: status.accounts.map((a) => ({
      id: a.id,
      name: a.name,
      account_type: a.account_type,
      balance: money(a.balance, a.currency),
      /** Whether a sync could not read the balance and none has since, so the one shown is older. */
      balance_stale: a.balance_stale,
      state: a.state,
      last_synced_at: a.last_synced_at,
      last_error: a.last_error,
      balance_check: a.balance_check && {
        status: a.balance_check.status,
        since: a.balance_check.since,
        difference:
          a.balance_check.difference === null ? null : money(a.balance_check.difference, a.currency),
      },
    })),
    /** Accounts that list the history of one no longer read (the bank linked again): counted twice. */
    successors: status.account_successors.map((s) => ({
      account: names.get(s.account_id) ?? s.account_id,
      continues: names.get(s.continues_account_id) ?? s.continues_account_id,
      shared_rows: s.shared_rows,
      rows: s.rows,
    })),
    /** The account the chart is of (or would be, when it has no balance to chart). */
    selected_account_id: account?.id ?? null,
    chart:
      account && engine && !chartNote
        ? await chartOf(
            runtime,
            userId,
            account,
            status.accounts.find((a) => a.id === account.id)?.balance_check?.basis ?? 'posted',
            engine,
          )
        : null,
    /** Why there is no chart, when the account has a balance all the same. */
    chart_note: chartNote ?? null,
    transactions: rendered.map((t, i) => ({
      id: t.id,
      date: t.date,
      name: t.name,
      account: t.account.name,
      category: t.category?.name ?? null,
      // The API's amounts are positive for money out: the page shows money in as +.
      amount: signed(moneyInPositive(latest.rows[i]!.amount), latest.rows[i]!.currency),
      income: isMoneyIn(latest.rows[i]!.amount),
      // A hold the bank may still change or drop: the page marks it.
      pending: pending.has(t.id),
    })),
  };
}
