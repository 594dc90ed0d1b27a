import type { AccountState, BalanceReconciliation, ConnectionStatus, ReplacementReason } from '../model.js';

/**
 * The part of a run an issue arose in: listing accounts, an account's transactions, balance or
 * holdings, or a storage write outside those.
 */
export type SyncStage = 'accounts' | 'transactions' | 'balance' | 'holdings' | 'storage';

/** One thing that went wrong in a run. `error` is the typed error (a `ProviderError` for provider failures). */
export interface SyncIssue {
  /** Where in the run it happened. */
  stage: SyncStage;
  /** The account it concerns; `null` for connection-wide issues (the account list, a skipped run). */
  accountId: string | null;
  /** The error's message, for logs and display. */
  message: string;
  /** The error itself, to test its type. */
  error: Error;
}

/** What one run did to one account. Counts are of transaction rows, in this run only. */
export interface AccountReport {
  /** The provider's account id. */
  accountId: string;
  /** The account's name, as in the mirror. */
  name: string;
  /** The account's state after the run (`gone` when the provider no longer knew it). */
  state: AccountState;
  /** Transactions the provider sent in this run (after client-side filtering). */
  fetched: number;
  /** Rows added to the mirror. */
  added: number;
  /** Rows whose record changed. */
  modified: number;
  /** Rows removed from the mirror. */
  removed: number;
  /** Rows the provider counted but did not send, even after window splitting. */
  shortfall: number;
  /**
   * Copies of a row listed twice under one id in one answer, left out: the posted copy is kept over a
   * pending one, else the later-dated, else the later-listed.
   */
  duplicateIds: number;
  /**
   * The balance fetch: `updated` (it changed), `unchanged`, `failed` (the previous balance is kept),
   * or `skipped` (not reached, e.g. the run stopped first).
   */
  balance: 'updated' | 'unchanged' | 'failed' | 'skipped';
  /**
   * The holdings fetch: `updated`, `unchanged`, `unsupported` (the provider has none for this
   * account), `failed`, or `skipped` (not asked this run: not reached, or not due for a recheck).
   */
  holdings: 'updated' | 'unchanged' | 'unsupported' | 'failed' | 'skipped';
  /** The window re-read this run (`from` null: the whole history). */
  window: {
    /** First day re-read (`YYYY-MM-DD`); `null`: from the start of the provider's history. */
    from: string | null;
    /** Last day re-read (`YYYY-MM-DD`). */
    to: string;
  } | null;
  /**
   * Rows the provider listed that the mirror shows under another key: a hold listed beside its
   * posted twin, or a row under an id the bank has since re-issued.
   */
  hidden: number;
  /** `replaces` / `replacedBy` links made in this run, by reason. */
  replacements: Record<ReplacementReason, number>;
  /**
   * The balance check of this run; `null` when it was not made (the balance or the rows could not
   * be fetched cleanly, so the mirror proves nothing).
   */
  reconciliation: BalanceReconciliation | null;
  /** What went wrong for this account (also listed in the connection's `issues`). */
  issues: SyncIssue[];
}

/** What one run of one connection did: its outcome, timings and a report per account. */
export interface ConnectionReport {
  /** The connection that was run. */
  connectionId: string;
  /** `true` only when nothing at all failed or was skipped. */
  ok: boolean;
  /**
   * `success`: no issue. `partial`: issues, and at least one account's transactions synced (its balance
   * or holdings may have failed). `failed`: no account's transactions synced. `skipped`: nothing was
   * fetched (re-auth needed, paused, or aborted before it began).
   */
  outcome: 'success' | 'partial' | 'failed' | 'skipped';
  /** Connection status after the run. */
  status: ConnectionStatus;
  /** When the run started (ISO timestamp). */
  startedAt: string;
  /** When the run finished (ISO timestamp). */
  finishedAt: string;
  /** `finishedAt` minus `startedAt`, in milliseconds; 0 for a skipped run. */
  durationMs: number;
  /** One report per account synced, in the order they were synced; empty for a skipped run. */
  accounts: AccountReport[];
  /** Every issue of the run, the accounts' included. */
  issues: SyncIssue[];
  /**
   * Accounts the provider listed that no store can hold (an id over `MAX_ACCOUNT_ID_LENGTH`), left
   * alone on every run. They do not fail the run: it could never succeed again, and a worker would
   * run the connection every few minutes instead of on its interval.
   */
  skippedAccounts: SkippedAccount[];
}

/** An account a run left alone, and why (`AccountIdTooLongError`). */
export interface SkippedAccount {
  /** Why, for logs and display; it shows at most 64 characters of the id. */
  message: string;
  /** The error itself, to test its type. */
  error: Error;
}

/** What `sync()` with no connection id returns: one report per stored connection. */
export interface SyncReport {
  /** `true` only when every connection's report is `ok`. */
  ok: boolean;
  /** One report per connection. */
  connections: ConnectionReport[];
}
