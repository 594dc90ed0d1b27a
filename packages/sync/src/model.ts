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
}

export interface MirrorTransaction {
  connectionId: string;
  accountId: string;
  /**
   * Stable key within the account: `id:<provider id>`, or for rows without an id
   * `h:<content hash>:<occurrence>` (the n-th identical row in the same response window).
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

/** `active`: synced on schedule. `reauth_required`: the provider refused the key (401/403); nothing is called until the key changes. `paused`: rate-limited until `pausedUntil`. */
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
  /** On an `added` posted row: the key of the pending row it replaces. On that `removed` pending row: the posted row's key. */
  replaces?: string | null;
  replacedBy?: string | null;
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
