/**
 * The mirror's records. Money is an exact decimal string and dates are `YYYY-MM-DD`, as in
 * @finsync/provider; timestamps are ISO 8601 strings in UTC.
 */
import type { AccountStatus } from '@finsync/provider';

/** `active`: synced. `inactive`: upstream status is not ACTIVE; kept, not fetched. `gone`: no longer listed upstream; history kept. */
export type AccountState = 'active' | 'inactive' | 'gone';

export interface MirrorBalance {
  amount: string;
  currency: string | null;
  /** When this balance was fetched. */
  fetchedAt: string;
}

export interface MirrorAccount {
  connectionId: string;
  id: string;
  name: string;
  institutionName: string | null;
  institutionLogo: string | null;
  provider: string | null;
  upstreamStatus: AccountStatus | null;
  /** From `/balance` once fetched (authoritative), else from `/accounts`. */
  currency: string | null;
  state: AccountState;
  balance: MirrorBalance | null;
  /**
   * Whether the provider's balance and the mirrored rows add up; `null` until the balance has been
   * checked once. It changes only when its outcome does, so a healthy account adds no feed entries.
   */
  reconciliation: BalanceReconciliation | null;
}

/**
 * The balance check of one account (see the package README, "Balances that add up").
 *
 * - `unchecked`: one balance seen so far; there is nothing to compare it with yet.
 * - `balanced`: the provider's balance moved by exactly what the mirrored rows moved since the
 *   last check that added up.
 * - `mismatch`: it did not; from `since` on, a running balance computed from the mirrored rows is
 *   off by `difference`.
 */
export interface BalanceReconciliation {
  status: 'unchecked' | 'balanced' | 'mismatch';
  /**
   * `posted`: the balance counts posted rows only (the usual case). `posted-and-pending`: this
   * bank's balance also counts pending rows.
   */
  basis: 'posted' | 'posted-and-pending';
  /**
   * The balance minus the mirrored rows (of `basis`): what the account held before `historyFrom`.
   * Not zero when history was not synced back to the account's opening (or it opened with money).
   */
  openingBalance: string;
  /** The earliest date of a mirrored posted row. */
  historyFrom: string | null;
  /** While `mismatch`: the first day whose running balance the rows do not explain. */
  since: string | null;
  /**
   * While `mismatch`: the provider's balance minus what the rows add up to. Positive: the rows
   * are short of money in (a deposit missing, or a payment counted twice); negative: the reverse.
   */
  difference: string | null;
}

/**
 * Why one transaction key stands for another in the mirror (the rules: the package's SPEC.md,
 * "Replacement rules"):
 * - `posted`: a pending row was replaced by its posted twin (also while the bank still lists the
 *   hold beside it);
 * - `id-changed`: the bank re-issued the id of a posted row (same account, date, amount, currency,
 *   merchant and description);
 * - `reverted`: the row that had replaced another disappeared while the one it replaced is still
 *   listed, so that one takes its place again.
 */
export type ReplacementReason = 'posted' | 'id-changed' | 'reverted';

export interface MirrorTransaction {
  connectionId: string;
  accountId: string;
  /**
   * Stable key within the account: `id:<provider id>` (`idh:<hash of the id>` for an id longer than
   * 256 characters), or for rows without an id `h:<content hash>:<occurrence>` (the n-th identical
   * row in the same response window).
   */
  key: string;
  providerId: string | null;
  amount: string;
  currency: string | null;
  date: string;
  merchant: string | null;
  description: string | null;
  isPending: boolean;
}

export interface MirrorHolding {
  connectionId: string;
  accountId: string;
  /** The aggregator's holding id when it has one, else derived from the security's identifiers. */
  key: string;
  name: string | null;
  tickerSymbol: string | null;
  isin: string | null;
  cusip: string | null;
  figi: string | null;
  quantity: string;
  price: string | null;
  value: string | null;
  costBasis: string | null;
  currency: string | null;
}

/**
 * `active`: synced on schedule. `reauth_required`: the provider refused the key (401/403); nothing
 * is called until the key changes. `paused`: rate-limited until `pausedUntil`. What moves a
 * connection from one to another: the package's SPEC.md, "Connection status".
 */
export type ConnectionStatus = 'active' | 'reauth_required' | 'paused';

export interface ConnectionState {
  id: string;
  status: ConnectionStatus;
  /** While `paused`: when calls may resume (ISO timestamp). */
  pausedUntil: string | null;
  /** Why the connection is not `active`, in words safe to show. */
  statusReason: string | null;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  createdAt: string;
}

/** Per-account bookkeeping that is not part of the mirror and never appears in the change feed. */
export interface AccountSyncState {
  connectionId: string;
  accountId: string;
  /** Last day fully synced; the next run re-reads an overlap window back from here. */
  watermark: string | null;
  lastSyncedAt: string | null;
  lastError: string | null;
  /** `null` until asked; `false` after the provider said the account has no holdings. */
  holdingsSupported: boolean | null;
  holdingsCheckedAt: string | null;
  /** Running totals behind the balance check; `null` in stores written before it existed. */
  ledger: AccountLedger | null;
}

/**
 * What the balance check remembers between runs, kept up to date by every commit that changes the
 * account's rows (so no check ever needs to sum the whole history).
 */
export interface AccountLedger {
  /** Sum of the mirrored posted rows' amounts. */
  postedTotal: string;
  /** The earliest date of a mirrored posted row. */
  historyFrom: string | null;
  /** The last check that added up; `null` before the first check. */
  anchor: LedgerAnchor | null;
  /**
   * Sum of the changes, since the anchor, to posted rows dated before the anchor's `historyFrom`:
   * history synced further back, which moves the opening balance and not the current one.
   */
  olderHistoryDelta: string;
  /** The earliest date of a posted row added, modified or removed since the anchor. */
  changedFrom: string | null;
}

export interface LedgerAnchor {
  /** The day of that check. */
  on: string;
  /** The balance then, minus the posted rows then. */
  openingPosted: string;
  /** The same, minus the pending rows too. */
  openingWithPending: string;
  basis: BalanceReconciliation['basis'];
  historyFrom: string | null;
  /** The readings the opening balances came from (absent in anchors stored by earlier versions). */
  balance?: string;
  postedTotal?: string;
  pendingTotal?: string;
  /**
   * Whether a check with something to test has added up since the first anchor. The first anchor's
   * opening balance is derived from the rows, so until the balance or the rows move, the rows add up
   * by construction and the account stays `unchecked`. Absent in older anchors: counted as checked.
   */
  checked?: boolean;
}

export type ChangeOp = 'added' | 'modified' | 'removed';

/** What every change has; `record` is the record after the change. */
export interface ChangeBase<E extends string, R> {
  entity: E;
  op: ChangeOp;
  connectionId: string;
  accountId: string;
  key: string;
  /** The record after the change; `null` for `removed`. */
  record: R | null;
}

export type AccountChange = ChangeBase<'account', MirrorAccount>;
export interface TransactionChange extends ChangeBase<'transaction', MirrorTransaction> {
  /** On an `added` row: the key of the row it takes the place of (see `reason`). */
  replaces?: string | null;
  /** On a `removed` row: the key of the row that takes its place. */
  replacedBy?: string | null;
  /** Why, on both entries of a `replaces` / `replacedBy` pair. */
  reason?: ReplacementReason;
}

/**
 * A row the provider still lists (or may list again) that the mirror no longer shows, because
 * another key stands for it: a hold listed beside its posted twin, or a posted row under an id the
 * bank has since re-issued. Engine bookkeeping, never in the feed: it is how a later sync that
 * receives the row again knows not to add it back.
 */
export interface SupersededTransaction {
  connectionId: string;
  accountId: string;
  key: string;
  /** The row as the provider last listed it. */
  record: MirrorTransaction;
  /** The mirror key that stands for it. */
  replacedBy: string;
  reason: ReplacementReason;
}
export type HoldingChange = ChangeBase<'holding', MirrorHolding>;

/** One change to the mirror. For an account, `key` equals `accountId`. */
export type Change = AccountChange | TransactionChange | HoldingChange;

/** A change as the feed hands it out. */
export type FeedEntry = Change & {
  /** Position in the feed: strictly increasing across the whole storage. */
  seq: number;
  /** When it was committed (ISO timestamp). */
  at: string;
};
