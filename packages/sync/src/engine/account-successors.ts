/**
 * Accounts that continue one another. When a user removes a bank from the provider and links it again,
 * the provider lists the same bank account under a new id, with its history under new transaction ids:
 * the mirror, which follows the provider, then holds the old account (`gone`, or `inactive`) and the new
 * one, the same purchases in both. Nothing in the provider's answers links them, and neither a name
 * nor a bank tells two accounts apart (two cards of one bank). So the engine merges nothing: it finds
 * the pairs whose posted history is the same, row for row, and says so; the app asks its user, and
 * moves what the user did to the old rows (`rows`).
 */
import { addDays } from '@finsync/internals/calendar';
import { checkedSignal } from '@finsync/internals/http';
import { toDecimalString } from '@finsync/internals/money';
import { SyncAbortedError } from '../errors.js';
import type { MirrorAccount, MirrorTransaction } from '../model.js';
import type { Storage } from '../storage/types.js';
import { PENDING_MATCH_DAYS } from './twins.js';

/** How alike two accounts' histories must be before one is said to continue the other. */
export interface AccountSuccessorOptions {
  /**
   * The share of each account's posted rows, over the dates both have rows for, that must be found in
   * the other, row for row (same date, amount, currency, merchant and description). Default 0.8: a
   * bank that rewrites a few descriptions on the new link still counts. From 0.5 to 1.
   */
  minimumShare?: number;
  /** At least this many rows in common. Default 10: a handful of rows alike says nothing. 1 to 1,000,000. */
  minimumRows?: number;
  /**
   * Posted rows read from each account, at most. Default 200,000; more throws a `RangeError` instead of
   * holding an unbounded history in memory. 1 to 10,000,000.
   */
  maxRowsPerAccount?: number;
  /** Stops the reading: the call rejects with `SyncAbortedError` (its `cause` the signal's reason). */
  signal?: AbortSignal;
}

/** One account that continues another: the old one is no longer read, the new one is. */
export interface AccountSuccessor {
  connectionId: string;
  /** The account no longer read (`gone` from the provider's list, or `inactive`). */
  previous: MirrorAccount;
  /** The active account whose posted history is the same. */
  successor: MirrorAccount;
  /** The dates both accounts have posted rows for (inclusive): where the histories were compared. */
  from: string;
  to: string;
  /** Posted rows of each account in those dates. */
  previousRows: number;
  successorRows: number;
  /**
   * The rows found in both, one to one: each old row's key and the key of the new row that is the
   * same purchase, in date order. Identical rows (two coffees of one day) pair in key order: nothing
   * in them tells them apart, so which of two takes which is not defined.
   */
  rows: Array<{ previousKey: string; successorKey: string }>;
}

const DEFAULTS = { minimumShare: 0.8, minimumRows: 10, maxRowsPerAccount: 200_000 } as const;

function checked(
  given: AccountSuccessorOptions | null | undefined,
): Required<Omit<AccountSuccessorOptions, 'signal'>> {
  const options = given ?? {};
  const merged = {
    minimumShare: options.minimumShare ?? DEFAULTS.minimumShare,
    minimumRows: options.minimumRows ?? DEFAULTS.minimumRows,
    maxRowsPerAccount: options.maxRowsPerAccount ?? DEFAULTS.maxRowsPerAccount,
  };
  const { minimumShare, minimumRows, maxRowsPerAccount } = merged;
  if (typeof minimumShare !== 'number' || !(minimumShare >= 0.5 && minimumShare <= 1))
    throw new RangeError(`minimumShare must be a number from 0.5 to 1, got ${String(minimumShare)}`);
  if (!Number.isInteger(minimumRows) || minimumRows < 1 || minimumRows > 1_000_000)
    throw new RangeError(
      `minimumRows must be a whole number from 1 to 1,000,000, got ${String(minimumRows)}`,
    );
  if (!Number.isInteger(maxRowsPerAccount) || maxRowsPerAccount < 1 || maxRowsPerAccount > 10_000_000)
    throw new RangeError(
      `maxRowsPerAccount must be a whole number from 1 to 10,000,000, got ${String(maxRowsPerAccount)}`,
    );
  return merged;
}

/**
 * What makes two rows one purchase across two links of one account: everything but the id. A row
 * stored before its account's currency was known has none: it is in the account's.
 */
function contentOf(row: MirrorTransaction, account: MirrorAccount): string {
  const currency = row.currency ?? account.currency;
  return JSON.stringify([
    row.date,
    toDecimalString(row.amount) ?? row.amount,
    currency,
    row.merchant,
    row.description,
  ]);
}

/**
 * Whether every row of either account left unpaired, in the dates both cover, lies within
 * `PENDING_MATCH_DAYS` of either end of them. Where two links of one account part, it is at their
 * ends: the new link's history starts part-way through a day, and the old one stopped before the
 * purchases it held pending were posted. Two accounts that share their rows by chance (two pots fed by
 * one standing order) part in the middle too, where one earned interest the other did not.
 */
function partOnlyAtTheEnds(unpaired: readonly MirrorTransaction[], from: string, to: string): boolean {
  const early = addDays(from, PENDING_MATCH_DAYS);
  const late = addDays(to, -PENDING_MATCH_DAYS);
  return unpaired.every((row) => row.date <= early || row.date >= late);
}

interface PostedHistory {
  rows: MirrorTransaction[];
  first: string | undefined;
  last: string | undefined;
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new SyncAbortedError('finding account successors was aborted', { cause: signal.reason });
}

async function postedHistory(
  storage: Storage,
  account: MirrorAccount,
  maxRows: number,
  signal: AbortSignal | undefined,
): Promise<PostedHistory> {
  const rows: MirrorTransaction[] = [];
  let first: string | undefined;
  let last: string | undefined;
  let read = 0;
  for await (const row of storage.scanTransactions(account.connectionId, account.id)) {
    if ((read += 1) % 1_000 === 0) stopIfAborted(signal);
    // Holds are the bank's guesses, and differ between links; the posted history is the account's own.
    if (row.isPending) continue;
    if (rows.length === maxRows)
      throw new RangeError(
        `account ${account.id} has more than ${maxRows} posted rows; raise maxRowsPerAccount to compare it`,
      );
    rows.push(row);
    if (first === undefined || row.date < first) first = row.date;
    if (last === undefined || row.date > last) last = row.date;
  }
  return { rows, first, last };
}

function inDates(history: PostedHistory, from: string, to: string): MirrorTransaction[] {
  return history.rows
    .filter((row) => row.date >= from && row.date <= to)
    .sort((a, b) =>
      a.date < b.date ? -1 : a.date > b.date ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
    );
}

/** The two histories compared over the dates both cover, or undefined when they do not qualify. */
function compare(
  previous: MirrorAccount,
  previousHistory: PostedHistory,
  successor: MirrorAccount,
  successorHistory: PostedHistory,
  options: Required<Omit<AccountSuccessorOptions, 'signal'>>,
): AccountSuccessor | undefined {
  if (!previousHistory.first || !previousHistory.last || !successorHistory.first || !successorHistory.last)
    return undefined;
  const from =
    previousHistory.first > successorHistory.first ? previousHistory.first : successorHistory.first;
  const to = previousHistory.last < successorHistory.last ? previousHistory.last : successorHistory.last;
  if (from > to) return undefined;
  const oldRows = inDates(previousHistory, from, to);
  const newRows = inDates(successorHistory, from, to);
  const waiting = new Map<string, string[]>();
  for (const row of newRows) {
    const content = contentOf(row, successor);
    const keys = waiting.get(content);
    if (keys) keys.push(row.key);
    else waiting.set(content, [row.key]);
  }
  const rows: AccountSuccessor['rows'] = [];
  const unpaired: MirrorTransaction[] = [];
  for (const row of oldRows) {
    const successorKey = waiting.get(contentOf(row, previous))?.shift();
    if (successorKey !== undefined) rows.push({ previousKey: row.key, successorKey });
    else unpaired.push(row);
  }
  const pairedNew = new Set(rows.map((r) => r.successorKey));
  for (const row of newRows) if (!pairedNew.has(row.key)) unpaired.push(row);
  const enough =
    rows.length >= options.minimumRows &&
    rows.length >= options.minimumShare * oldRows.length &&
    rows.length >= options.minimumShare * newRows.length;
  if (!enough || !partOnlyAtTheEnds(unpaired, from, to)) return undefined;
  return {
    connectionId: previous.connectionId,
    previous,
    successor,
    from,
    to,
    previousRows: oldRows.length,
    successorRows: newRows.length,
    rows,
  };
}

/**
 * The accounts of a connection that continue an account the engine no longer reads. A pair is named
 * only when nothing else can be meant: the old account is `gone` or `inactive`, the new one `active`,
 * both in one currency (when both are known) and at one bank (when both name it), their posted rows
 * alike over the dates both cover (see `AccountSuccessorOptions`), parting only at the ends of those
 * dates (`PENDING_MATCH_DAYS`), and no other active account alike enough. Reads
 * two accounts' posted rows at a time, for each old account and each candidate; writes nothing.
 */
export async function findAccountSuccessors(
  storage: Storage,
  connectionId: string,
  options: AccountSuccessorOptions = {},
): Promise<AccountSuccessor[]> {
  const limits = checked(options);
  const signal = checkedSignal(options?.signal);
  stopIfAborted(signal);
  const accounts = await storage.listAccounts(connectionId);
  const previous = accounts.filter((a) => a.state !== 'active');
  const current = accounts.filter((a) => a.state === 'active');
  const candidates = (old: MirrorAccount) =>
    current.filter(
      (a) =>
        (old.currency === null || a.currency === null || old.currency === a.currency) &&
        (old.institutionName === null ||
          a.institutionName === null ||
          old.institutionName.toLowerCase() === a.institutionName.toLowerCase()),
    );
  if (previous.length === 0 || current.length === 0) return [];
  // Two histories in memory at a time, at most: the old account's and the one it is compared with.
  const found: AccountSuccessor[] = [];
  for (const old of previous) {
    const others = candidates(old);
    if (others.length === 0) continue;
    const oldHistory = await postedHistory(storage, old, limits.maxRowsPerAccount, signal);
    for (const other of others) {
      stopIfAborted(signal);
      const otherHistory = await postedHistory(storage, other, limits.maxRowsPerAccount, signal);
      const pair = compare(old, oldHistory, other, otherHistory, limits);
      if (pair) found.push(pair);
    }
  }
  // An old account alike two active ones is continued by neither: nothing says which. An active
  // account may continue several old ones (a bank linked three times leaves two old links).
  const partners = new Map<string, number>();
  for (const pair of found) partners.set(pair.previous.id, (partners.get(pair.previous.id) ?? 0) + 1);
  return found.filter((pair) => partners.get(pair.previous.id) === 1);
}
