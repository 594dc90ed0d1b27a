import type { SandboxAccountSpec } from './accounts.js';

export interface SandboxOptions {
  /** Default 1. Same seed + options + today ⇒ byte-identical responses. */
  seed?: number;
  /** Default 'sandbox-key'. */
  apiKey?: string;
  /** YYYY-MM-DD, default '2026-06-30'. */
  today?: string;
  /** History starts at (initial today − historyDays) and stays there when time advances. Default 730. */
  historyDays?: number;
  /** Mean rows per day for ordinary (current/credit-card) accounts. Default 3. */
  transactionsPerDay?: number;
  /** Default: the documented set (4711, 4712, 4713, 5001, 5002, 6001, 7001, 8001). */
  accounts?: SandboxAccountSpec[];
  /** Serve only the first N rows of a window while `total` stays the true count. */
  maxRowsPerResponse?: number;
  /** Use the alternative spellings seen in real payloads (same meaning). Default false. */
  wireVariants?: boolean;
  /**
   * Default true: some card holds stay listed (pending, id null) for 1–3 days beside their posted
   * row, as many banks do. False: a hold disappears the day its row posts; nothing else changes.
   */
  lingeringHolds?: boolean;
  /**
   * Default false. True: about a fifth of the card holds that post (and do not linger) are listed
   * while pending at the amount before a tip of 10–25 %, and post at the full amount, as a restaurant
   * bill or a fuel pre-authorisation does. Nothing else changes, balances included.
   */
  holdsSettleElsewise?: boolean;
  /** Request records kept (oldest dropped). Default 10 000. */
  logLimit?: number;
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
  accountId: string;
  amount: string;
  currency: string;
  /** YYYY-MM-DD: the authorisation day while pending, the posting day once posted. */
  date: string;
  merchant: string | null;
  description: string | null;
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

export interface TransactionQuery {
  /** Inclusive, on the row's date. Omitted: from the start of history. */
  from?: string;
  /** Inclusive. Omitted: up to today. */
  to?: string;
  /** Default false, like the API's `include_pending`. */
  includePending?: boolean;
}

export interface SandboxBalance {
  /** Exact decimal with the currency's minor-unit digits, e.g. "-412.07". */
  amount: string;
  currency: string;
}

export interface SandboxRequestRecord {
  method: string;
  /** Full pathname as received, e.g. '/api/v1/accounts/4711/balance'. */
  path: string;
  query: Record<string, string>;
  /** 0 while in flight, for network errors and for requests aborted by the client. */
  status: number;
}
