/**
 * The base class of the errors the sync engine and its storages throw: test `instanceof SyncError`
 * to catch them all.
 */
export class SyncError extends Error {
  override readonly name: string = 'SyncError';
}

/** A connection id as messages show it: quoted, and cut short past 64 characters (ids are caller input). */
function shownId(connectionId: unknown): string {
  const text = String(connectionId);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** A write batch contradicts what is stored (added twice, or modified/removed while absent). Nothing was written. */
export class StorageConflictError extends SyncError {
  override readonly name: string = 'StorageConflictError';
  /** The kind of record the conflicting change was for (`account`, `transaction`, `holding`). */
  readonly entity: string;
  /** The key of the conflicting record. */
  readonly key: string;

  constructor(message: string, details: { entity: string; key: string }) {
    super(message);
    this.entity = details.entity;
    this.key = details.key;
  }
}

/** No connection with this id is stored (e.g. `sync` or `updateCredentials` of an id never added). */
export class UnknownConnectionError extends SyncError {
  override readonly name: string = 'UnknownConnectionError';
  /** The id that was asked for. */
  readonly connectionId: string;

  constructor(connectionId: string) {
    super(`no connection with id ${shownId(connectionId)}`);
    this.connectionId = connectionId;
  }
}

/**
 * A stored connection the engine has no key for: it was not given one since the process started
 * (`addConnection` / `updateCredentials`), and the `credentials` option has none for it. The run is
 * reported as skipped with this error; nothing is called.
 */
export class MissingCredentialsError extends SyncError {
  override readonly name: string = 'MissingCredentialsError';
  /** The connection without a key. */
  readonly connectionId: string;

  constructor(connectionId: string) {
    super(
      `no API key for connection ${shownId(connectionId)}: give the engine a \`credentials\` option that knows it, or call addConnection/updateCredentials after a restart`,
    );
    this.connectionId = connectionId;
  }
}

/** The engine was stopped while a run was in flight. */
export class SyncAbortedError extends SyncError {
  override readonly name: string = 'SyncAbortedError';
}

/**
 * The provider listed no holdings for an account whose holdings are mirrored, while the same answer's
 * `totalValue` says there is something: a broken answer, not a portfolio sold off. The mirrored
 * holdings are kept, and the next run asks again.
 */
export class EmptyHoldingsError extends SyncError {
  override readonly name: string = 'EmptyHoldingsError';
  /** The provider's account id. */
  readonly accountId: string;
  /** How many holdings are mirrored, and kept. */
  readonly kept: number;
  /** The answer's own total, a decimal string. */
  readonly totalValue: string;

  constructor(accountId: string, kept: number, totalValue: string) {
    super(
      `the provider listed no holdings for account ${shownId(accountId)} but a total value of ${totalValue}: the ${kept} mirrored are kept, and asked for again on the next run`,
    );
    this.accountId = accountId;
    this.kept = kept;
    this.totalValue = totalValue;
  }
}

/** A worker tried to commit for a connection whose lease it no longer holds. Nothing was written. */
export class LeaseLostError extends SyncError {
  override readonly name: string = 'LeaseLostError';
  /** The connection whose lease was lost. */
  readonly connectionId: string;
  /** The worker that no longer holds it. */
  readonly workerId: string;

  constructor(connectionId: string, workerId: string) {
    super(`worker ${workerId} no longer holds the lease on connection ${connectionId}`);
    this.connectionId = connectionId;
    this.workerId = workerId;
  }
}

/**
 * The provider answered 404 for the holdings of an account whose holdings are mirrored. Some
 * providers say "no holdings here" with a 404, but one that listed them lately more likely failed for
 * a moment: for `holdingsRecheckDays` after its last answer the mirrored holdings are kept, and asked
 * for again on the next run; after that the 404 is believed, and they are removed. (A 501 is believed
 * at once.)
 */
export class HoldingsNotFoundError extends SyncError {
  override readonly name: string = 'HoldingsNotFoundError';
  /** The provider's account id. */
  readonly accountId: string;
  /** How many holdings are mirrored, and kept. */
  readonly kept: number;

  constructor(accountId: string, kept: number) {
    super(
      `the provider answered 404 for the holdings of account ${shownId(accountId)}, which has ${kept} mirrored: they are kept, and asked for again on the next run (for holdingsRecheckDays after its last answer)`,
    );
    this.accountId = accountId;
    this.kept = kept;
  }
}

/**
 * The provider answered no row at all for days where posted rows are mirrored. Either the whole
 * answer was empty, what its passing failure looks like (`reason` `'empty answer'`): the next run
 * reads those days again. Or the answer began later than the days asked for, which are over 60 days
 * old (`'shorter history'`): a bank's consent window that no longer reaches back to them, whose rows
 * are real history; those days are not asked for again. Either way nothing of those days was removed,
 * and the balance was not checked against the rows in that run.
 */
export class EmptyAnswerError extends SyncError {
  override readonly name: string = 'EmptyAnswerError';
  /** The provider's account id. */
  readonly accountId: string;
  /** Mirrored posted rows the answer left out, all kept. */
  readonly kept: number;
  /** An empty answer, or one that began later than the (old) days asked for. */
  readonly reason: 'empty answer' | 'shorter history';

  constructor(
    accountId: string,
    kept: number,
    days: { from: string | null; to: string | null },
    reason: 'empty answer' | 'shorter history' = 'empty answer',
  ) {
    super(
      `the provider listed no row for account ${shownId(accountId)} from ${days.from ?? 'the start'} to ${days.to ?? 'today'}, where ${kept} posted rows are mirrored: ${reason === 'empty answer' ? 'taken for a passing failure' : 'taken for history the provider no longer reaches back to'}, nothing removed`,
    );
    this.accountId = accountId;
    this.kept = kept;
    this.reason = reason;
  }
}

/**
 * The provider listed an account whose id is longer than `MAX_ACCOUNT_ID_LENGTH` (256): the provider
 * client cannot ask for it, and not every store can key it (PostgreSQL's keys stop near 2.7 KB). It is
 * left alone on every run (the report's `skippedAccounts`, which do not fail the run); one stored
 * before is marked `gone`. No bank's account id is that long: it is more likely a broken answer.
 */
export class AccountIdTooLongError extends SyncError {
  override readonly name: string = 'AccountIdTooLongError';
  /** The id's length, in UTF-16 code units (the id itself is not kept: it is too long to show). */
  readonly length: number;

  constructor(accountId: string, maxLength: number) {
    super(
      `the provider listed an account whose id has ${accountId.length} characters, more than ${maxLength}: skipped (${shownId(accountId)})`,
    );
    this.length = accountId.length;
  }
}
