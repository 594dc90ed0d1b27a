export { MAX_CONNECTION_ID_LENGTH, SyncEngine } from './engine/engine.js';
/** The longest account id the engine syncs: the provider client's bound (`AccountIdTooLongError`). */
export { MAX_ACCOUNT_ID_LENGTH } from '@finsync/provider';
export { SyncWorker } from './engine/worker.js';
export type { SyncWorkerOptions, WorkerRunEvent } from './engine/worker.js';
export type {
  SyncEngineOptions,
  AddConnectionOptions,
  ConnectionCredentials,
  CredentialSource,
  ResolvedCredentials,
  SyncCallOptions,
} from './engine/engine.js';
export type { SyncTuning, EngineClock, SyncLogger } from './engine/options.js';
export type { AccountSuccessor, AccountSuccessorOptions } from './engine/account-successors.js';
export { DEFAULT_TUNING } from './engine/options.js';
export type { ScheduleOptions } from './engine/scheduler.js';
export type { SyncEvents, SyncEventName, SyncListener, SyncProgress } from './engine/events.js';
export type {
  AccountReport,
  ConnectionReport,
  SkippedAccount,
  SyncIssue,
  SyncReport,
  SyncStage,
} from './engine/report.js';
export { PENDING_MATCH_DAYS } from './engine/twins.js';
export { REDATED_MARGIN_DAYS } from './engine/transaction-reads.js';
export { MemoryStorage } from './storage/memory.js';
export type {
  Storage,
  WriteBatch,
  TransactionQuery,
  ReadChangesOptions,
  WorkQueue,
  LeaseInfo,
  TransactionRef,
} from './storage/types.js';
export { MAX_LEASE_MS, MAX_QUERY_KEYS, isWorkQueue } from './storage/types.js';
export {
  SyncError,
  StorageConflictError,
  UnknownConnectionError,
  MissingCredentialsError,
  SyncAbortedError,
  LeaseLostError,
  HoldingsNotFoundError,
  EmptyHoldingsError,
  EmptyAnswerError,
  AccountIdTooLongError,
} from './errors.js';
export type * from './model.js';
