import type { AccountState, BalanceReconciliation, ConnectionStatus, ReplacementReason } from '../model.js';

export type SyncStage = 'accounts' | 'transactions' | 'balance' | 'holdings' | 'storage';

/** One thing that went wrong in a run. `error` is the typed error (a `ProviderError` for provider failures). */
export interface SyncIssue {
  stage: SyncStage;
  accountId: string | null;
  message: string;
  error: Error;
}

export interface AccountReport {
  accountId: string;
  name: string;
  state: AccountState;
  /** Transactions the provider sent in this run (after client-side filtering). */
  fetched: number;
  added: number;
  modified: number;
  removed: number;
  /** Rows the provider counted but did not send, even after window splitting. */
  shortfall: number;
  balance: 'updated' | 'unchanged' | 'failed' | 'skipped';
  holdings: 'updated' | 'unchanged' | 'unsupported' | 'failed' | 'skipped';
  /** The window re-read this run (`from` null: the whole history). */
  window: { from: string | null; to: string } | null;
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
  issues: SyncIssue[];
}

export interface ConnectionReport {
  connectionId: string;
  /** `true` only when nothing at all failed or was skipped. */
  ok: boolean;
  /** `skipped`: nothing was fetched (re-auth needed, paused, or aborted before it began). */
  outcome: 'success' | 'partial' | 'failed' | 'skipped';
  /** Connection status after the run. */
  status: ConnectionStatus;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  accounts: AccountReport[];
  /** Every issue of the run, the accounts' included. */
  issues: SyncIssue[];
}

export interface SyncReport {
  ok: boolean;
  connections: ConnectionReport[];
}
