import type { SandboxAccountSpec } from './accounts.js';

/**
 * What `new SandboxProvider(…)` takes. Every option is optional; the sandbox is a pure function of
 * them and of `today`, so the same options give the same answers on every run.
 */
export interface SandboxOptions {
  /** Default 1. Same seed + options + today ⇒ byte-identical responses. */
  seed?: number | undefined;
  /**
   * The key requests must send (`x-api-key`, or `Authorization: Bearer`): none is a 401, another a 403.
   * A non-empty string without control characters. Default 'sandbox-key'.
   */
  apiKey?: string | undefined;
  /** YYYY-MM-DD, default '2026-06-30'. */
  today?: string | undefined;
  /**
   * History starts at (initial today − historyDays) and stays there when time advances. 0 to 36 525
   * (a century). Default 730.
   */
  historyDays?: number | undefined;
  /** Mean rows per day for ordinary (current/credit-card) accounts. Default 3. */
  transactionsPerDay?: number | undefined;
  /** Default: the documented set (4711, 4712, 4713, 5001, 5002, 6001, 7001, 8001). */
  accounts?: SandboxAccountSpec[] | undefined;
  /**
   * Serve only the first N rows of a window while `total` stays the true count, to imitate a provider
   * that caps its answers. Default: no cap.
   */
  maxRowsPerResponse?: number | undefined;
  /** Use the alternative spellings seen in real payloads (same meaning). Default false. */
  wireVariants?: boolean | undefined;
  /**
   * Default true: some card holds stay listed (pending, id null) for 1–3 days beside their posted
   * row, as many banks do. False: a hold disappears the day its row posts; nothing else changes.
   */
  lingeringHolds?: boolean | undefined;
  /**
   * Default false. True: about a fifth of the card holds that post (and do not linger) are listed
   * while pending at the amount before a tip of 10–25 %, and post at the full amount, as a restaurant
   * bill or a fuel pre-authorisation does. Nothing else changes, balances included.
   */
  holdsSettleElsewise?: boolean | undefined;
  /**
   * Default false. True: about a fifth of the card holds pending for two days or more are listed on
   * their first day at an estimate (50–90 % of the amount, as a hotel's or a fuel pump's first
   * authorisation) and from the next day at the amount they post at. A hold has no id, so the bank
   * lists it again under other content. Nothing else changes, balances included.
   */
  holdsRelisted?: boolean | undefined;
  /** Request records kept (oldest dropped). Default 10 000. */
  logLimit?: number | undefined;
}

/**
 * Ground truth for one transaction row. `amount` is an exact decimal string with exactly the
 * currency's minor-unit digits ("-23.40", JPY "-1500"); the wire sends the same value as a JSON
 * number, which drops trailing zeros (-23.4). `lingering` and `purchaseId` exist only here: the
 * wire rows carry the other eight fields.
 */
export interface SandboxTransaction {
  /**
   * Null while pending; a `tx_…` id once posted (a different row from the pending one). Stable,
   * except on accounts with `reissueIdsEveryDays`, where every posted id changes with the epoch.
   */
  id: string | null;
  /** The account's id, as a string. */
  accountId: string;
  /** Signed: negative is money out. Exact decimal with the currency's minor-unit digits. */
  amount: string;
  /** The account's ISO 4217 code, e.g. `GBP`. */
  currency: string;
  /** YYYY-MM-DD: the authorisation day while pending, the posting day once posted. */
  date: string;
  /** The merchant's name, or null when the row names none. */
  merchant: string | null;
  /** The bank's description text; a pending row's can differ from its posted row's. */
  description: string | null;
  /** True while the purchase is an authorisation hold not yet posted (and for lingering holds). */
  isPending: boolean;
  /**
   * True on a pending row still listed although its purchase has posted (its posted row is in
   * the same response, or outside the window asked for). A correct importer shows the purchase
   * once: as its posted row.
   */
  lingering: boolean;
  /**
   * The purchase behind the row: the same for its pending, lingering and posted rows and across
   * id re-issues, different for two otherwise identical purchases. Opaque; compare for equality.
   */
  purchaseId: string;
}

/** Which rows `SandboxProvider.transactionsOf` and `countTransactions` cover, as `/transactions` would. */
export interface TransactionQuery {
  /** Inclusive, on the row's date. Omitted: from the start of history. */
  from?: string;
  /** Inclusive. Omitted: up to today. */
  to?: string;
  /** Default false, like the API's `include_pending`. */
  includePending?: boolean;
}

/** Ground truth for an account's balance today, as `SandboxProvider.balanceOf` returns it. */
export interface SandboxBalance {
  /** Exact decimal with the currency's minor-unit digits, e.g. "-412.07". */
  amount: string;
  /** The account's authoritative ISO 4217 code, as `/balance` reports it. */
  currency: string;
}

/** One request the sandbox handled, as listed by `SandboxProvider.requests`, for asserting on traffic. */
export interface SandboxRequestRecord {
  /** HTTP method as received, e.g. `'GET'`. */
  method: string;
  /** Full pathname as received, e.g. '/api/v1/accounts/4711/balance'. */
  path: string;
  /** The query parameters, e.g. `{ from: '2026-01-01', include_pending: 'true' }`. */
  query: Record<string, string>;
  /** 0 while in flight, for network errors and for requests aborted by the client. */
  status: number;
}
