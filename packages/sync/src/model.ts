/**
 * The mirror's records. Money is an exact decimal string and dates are `YYYY-MM-DD`, as in
 * @finsync/provider; timestamps are ISO 8601 strings in UTC.
 */
import type { AccountStatus } from '@finsync/provider';

/** `active`: synced. `inactive`: upstream status is not ACTIVE; kept, not fetched. `gone`: no longer listed upstream; history kept. */
export type AccountState = 'active' | 'inactive' | 'gone';

/** An account's balance as last fetched from the provider's `/balance`. */
export interface MirrorBalance {
  /** Decimal string, signed from the holder's view: an owed card or loan is negative. */
  amount: string;
  /** ISO 4217 code, upper-cased; `null` when the provider gave none. */
  currency: string | null;
  /**
   * When the provider first gave this balance (this amount and currency). A later read that finds the
   * same balance keeps it, so a re-sync with nothing new writes nothing; when the balance was last read
   * is the account's `lastSyncedAt`, unless that run reported a `balance` issue for it.
   */
  fetchedAt: string;
}

/**
 * One account of a connection as the mirror holds it. Accounts are never deleted by a sync: one the
 * provider stops listing is kept with `state: 'gone'`, its rows and history included.
 */
export interface MirrorAccount {
  /** The connection the account belongs to. */
  connectionId: string;
  /** The provider's account id; unique only within the connection. */
  id: string;
  /** The account's name as the provider lists it (trimmed; empty when it gives none). */
  name: string;
  /** The bank's name, when the provider gives it. */
  institutionName: string | null;
  /** A URL of the bank's logo, when the provider gives one. */
  institutionLogo: string | null;
  /** The upstream aggregator the provider reached the bank through, lower-cased; `null` when not given. */
  provider: string | null;
  /**
   * The status the provider lists, upper-cased (`ACTIVE`, `DISCONNECTED`, `ERROR`, …); `null` when
   * it gives none, which counts as active. Anything but `ACTIVE` makes the account `inactive`.
   */
  upstreamStatus: AccountStatus | null;
  /** From `/balance` once fetched (authoritative), else from `/accounts`. */
  currency: string | null;
  /** Whether the engine syncs the account; see {@link AccountState}. */
  state: AccountState;
  /** The last balance fetched; `null` until one has been. A failed fetch keeps the previous one. */
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
 * - `unchecked`: the balance has not been compared with the rows: it is the first one seen, or it
 *   was fetched in a run whose rows did not sync cleanly while the balance or the rows moved (then
 *   `basis`, `openingBalance` and `historyFrom` are those of the last check). The next clean run checks it.
 * - `balanced`: the provider's balance moved by exactly what the mirrored rows moved since the
 *   last check that added up.
 * - `mismatch`: it did not; from `since` on, a running balance computed from the mirrored rows is
 *   off by `difference`.
 */
export interface BalanceReconciliation {
  /** The outcome of the last check; see above. */
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
 *   merchant and description), or listed a hold again with other content while it is still pending
 *   (a hold has no id: its key is made from what it says);
 * - `reverted`: the row that had replaced another disappeared while the one it replaced is still
 *   listed, so that one takes its place again.
 */
export type ReplacementReason = 'posted' | 'id-changed' | 'reverted';

/**
 * Why the engine remembers a row the mirror no longer shows: a {@link ReplacementReason} (another key
 * stands for it), or `lapsed`: a hold that vanished before any posting of it was listed (a bank that
 * drops the hold a read before the posting appears). A lapsed hold is remembered, standing for
 * itself, until no routine re-read reaches it, so that its posting, arriving later, is still linked
 * to it (`replaces`). Bookkeeping only: `lapsed` never appears in the feed.
 */
export type SupersededReason = ReplacementReason | 'lapsed';

/** One transaction row of an account, pending or posted, as the mirror holds it. */
export interface MirrorTransaction {
  /** The connection the row belongs to. */
  connectionId: string;
  /** The account the row belongs to. */
  accountId: string;
  /**
   * Stable key within the account: `id:<provider id>` (`idh:<hash of the id>` for an id longer than
   * 256 characters), or for rows without an id `h:<content hash>:<occurrence>` (the n-th identical
   * row in the same response window).
   */
  key: string;
  /** The provider's transaction id; `null` for rows it gives no id (often pending ones). */
  providerId: string | null;
  /** Decimal string, signed: negative is money out, positive money in. */
  amount: string;
  /**
   * ISO 4217 code, upper-cased. A row listed without one takes the account's currency when that is
   * known; `null` otherwise.
   */
  currency: string | null;
  /** The row's calendar date, `YYYY-MM-DD`, as the provider lists it; it may change between syncs. */
  date: string;
  /** The merchant or payee name, when the provider gives one. */
  merchant: string | null;
  /** The provider's description text, when it gives one. */
  description: string | null;
  /** Whether the row is a pending one (a card hold, say) rather than posted. */
  isPending: boolean;
}

/**
 * One position (one lot) of an investment account, as the mirror holds it. Amounts are decimal
 * strings; the security identifiers are whatever the provider gives, each `null` when absent.
 */
export interface MirrorHolding {
  /** The connection the holding belongs to. */
  connectionId: string;
  /** The account the holding belongs to. */
  accountId: string;
  /**
   * The aggregator's holding id when it has one, else derived from the security's identifiers. A
   * second row with the same key (a second lot of one security) gets a `#1`, `#2`, … suffix.
   */
  key: string;
  /** The security's name. */
  name: string | null;
  /** The security's ticker symbol. */
  tickerSymbol: string | null;
  /** The security's ISIN. */
  isin: string | null;
  /** The security's CUSIP. */
  cusip: string | null;
  /** The security's FIGI. */
  figi: string | null;
  /** Units held. */
  quantity: string;
  /** Price of one unit, in `currency`. */
  price: string | null;
  /** Market value of the position, in `currency`. */
  value: string | null;
  /** What the position cost, in `currency`. */
  costBasis: string | null;
  /** ISO 4217 code of the amounts: the holding's, else its security's; `null` when neither is given. */
  currency: string | null;
}

/**
 * `active`: synced on schedule. `reauth_required`: the provider refused the key (401/403); nothing
 * is called until the key changes. `paused`: rate-limited until `pausedUntil`. What moves a
 * connection from one to another: the package's SPEC.md, "Connection status".
 */
export type ConnectionStatus = 'active' | 'reauth_required' | 'paused';

/**
 * A connection's stored state: whether the engine may call the provider for it, and when it last
 * ran. Engine bookkeeping, never in the change feed.
 */
export interface ConnectionState {
  /** The id given to `addConnection`. */
  id: string;
  /** Whether the engine may call the provider for this connection; see {@link ConnectionStatus}. */
  status: ConnectionStatus;
  /** While `paused`: when calls may resume (ISO timestamp). */
  pausedUntil: string | null;
  /** Why the connection is not `active`, in words safe to show. */
  statusReason: string | null;
  /** When the last run started (ISO timestamp); `null` before the first run. */
  lastRunAt: string | null;
  /** When the last run in which nothing failed finished (ISO timestamp); `null` until one has. */
  lastSuccessAt: string | null;
  /** When the connection was first added (ISO timestamp). */
  createdAt: string;
}

/** Per-account bookkeeping that is not part of the mirror and never appears in the change feed. */
export interface AccountSyncState {
  /** The connection the account belongs to. */
  connectionId: string;
  /** The account this state is for. */
  accountId: string;
  /** Last day fully synced; the next run re-reads an overlap window back from here. */
  watermark: string | null;
  /** When the account's last sync finished (ISO timestamp), whether or not it went cleanly. */
  lastSyncedAt: string | null;
  /** The message of the first issue of the account's last sync; `null` when it had none. */
  lastError: string | null;
  /** `null` until asked; `false` after the provider said the account has no holdings. */
  holdingsSupported: boolean | null;
  /**
   * When holdings were last asked for (ISO timestamp). An account without holdings support is asked
   * again `holdingsRecheckDays` after this.
   */
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
   * history synced further back, which moves the opening balance and not the current one, or
   * postings the bank dated early, which move the balance; the check tries both readings.
   */
  olderHistoryDelta: string;
  /** The earliest date of a posted row added, modified or removed since the anchor. */
  changedFrom: string | null;
  /**
   * How many rows, pending ones included, the sums have counted; absent in ledgers stored by earlier
   * versions. Compared with the rows stored before the first anchor is taken on the sums.
   */
  rows?: number;
  /**
   * The `postedTotal` at which a recount of the stored rows, made for a check that failed, found the
   * kept sums right; absent until then. A failing check at the same total is not recounted again.
   */
  recountedTotal?: string;
  /**
   * Set by a commit that changed the account's rows (pending ones too), cleared by the next check
   * that compares them with a balance: while set, the verdict stored on the account is about rows
   * that are no longer all there. Committed with the rows, so a run that stops before its check (a
   * rate limit, a refused key, a failed write) leaves it for the next run to see.
   */
  movedSinceCheck?: boolean;
  /**
   * The currency the last balance that named one named (absent in ledgers stored by earlier versions,
   * and until a check sees one): a balance listed without a currency is in it.
   */
  namedCurrency?: string;
}

/** The last balance check that added up, as {@link AccountLedger} keeps it: what later checks compare with. */
export interface LedgerAnchor {
  /** The day of that check. */
  on: string;
  /** The balance then, minus the posted rows then. */
  openingPosted: string;
  /** The same, minus the pending rows too. */
  openingWithPending: string;
  /** Which rows the bank's balance counted at that check. */
  basis: BalanceReconciliation['basis'];
  /** The earliest date of a mirrored posted row at that check. */
  historyFrom: string | null;
  /** The readings the opening balances came from (absent in anchors stored by earlier versions). */
  balance?: string;
  /** Sum of the posted rows at that check (absent in anchors stored by earlier versions). */
  postedTotal?: string;
  /** Sum of the pending rows at that check (absent in anchors stored by earlier versions). */
  pendingTotal?: string;
  /**
   * Whether a check with something to test has added up since the first anchor. The first anchor's
   * opening balance is derived from the rows, so until the balance or the rows move, the rows add up
   * by construction and the account stays `unchecked`. Absent in older anchors: counted as checked.
   */
  checked?: boolean;
  /**
   * The balance's currency at that check (absent in anchors stored by earlier versions). A balance in
   * another currency is not measured from this anchor: `unchecked`, and the anchor kept until a second
   * balance in a row comes in that currency, when the check starts again from it.
   */
  currency?: string | null;
}

/** What a change did to its record: created it, replaced it, or deleted it from the mirror. */
export type ChangeOp = 'added' | 'modified' | 'removed';

/** What every change has; `record` is the record after the change. */
export interface ChangeBase<E extends string, R> {
  /** Which kind of record changed: `account`, `transaction` or `holding`. */
  entity: E;
  /** What happened to it. */
  op: ChangeOp;
  /** The connection the record belongs to. */
  connectionId: string;
  /** The account the record belongs to (for an account change, the account itself). */
  accountId: string;
  /** The record's key within the account; for an account, its id. */
  key: string;
  /** The record after the change; `null` for `removed`. */
  record: R | null;
}

/** A change to an account record (its details, state, balance or balance check). */
export type AccountChange = ChangeBase<'account', MirrorAccount>;
/** A change to a transaction row; may link to the row it replaces or is replaced by. */
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
  /** The connection the row belongs to. */
  connectionId: string;
  /** The account the row belongs to. */
  accountId: string;
  /** The row's own key (no longer in the mirror). */
  key: string;
  /** The row as the provider last listed it. */
  record: MirrorTransaction;
  /** The mirror key that stands for it (its own key while it is `lapsed`). */
  replacedBy: string;
  /** Why that key stands for it. */
  reason: SupersededReason;
}
/** A change to a holding. */
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
