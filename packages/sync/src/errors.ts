/** Errors of the sync engine and its storages. */
export class SyncError extends Error {
  override readonly name: string = 'SyncError';
}

/** A write batch contradicts what is stored (added twice, or modified/removed while absent). Nothing was written. */
export class StorageConflictError extends SyncError {
  override readonly name: string = 'StorageConflictError';
  readonly entity: string;
  readonly key: string;

  constructor(message: string, details: { entity: string; key: string }) {
    super(message);
    this.entity = details.entity;
    this.key = details.key;
  }
}

export class UnknownConnectionError extends SyncError {
  override readonly name: string = 'UnknownConnectionError';
  readonly connectionId: string;

  constructor(connectionId: string) {
    super(`no connection with id ${JSON.stringify(connectionId)}`);
    this.connectionId = connectionId;
  }
}

/** The engine was stopped while a run was in flight. */
export class SyncAbortedError extends SyncError {
  override readonly name: string = 'SyncAbortedError';
}

/** A worker tried to commit for a connection whose lease it no longer holds. Nothing was written. */
export class LeaseLostError extends SyncError {
  override readonly name: string = 'LeaseLostError';
  readonly connectionId: string;
  readonly workerId: string;

  constructor(connectionId: string, workerId: string) {
    super(`worker ${workerId} no longer holds the lease on connection ${connectionId}`);
    this.connectionId = connectionId;
    this.workerId = workerId;
  }
}
