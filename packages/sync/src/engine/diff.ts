/**
 * Turning one provider response window into changes to the mirror. Pure functions: given what the
 * provider sent and what is stored, they say what to add, modify and remove.
 */
import { addDays } from '@finsync/provider';
import type { MirrorTransaction, TransactionChange } from '../model.js';
import { sameTransaction } from './keys.js';

/** A pending row and its posted twin are within this many days (the posted date is never earlier). */
export const PENDING_MATCH_DAYS = 8;

export interface WindowDiffInput {
  /** Rows the provider sent for the window, keyed. */
  incoming: MirrorTransaction[];
  /** Stored rows dated inside the window. */
  storedInWindow: MirrorTransaction[];
  /** Every stored pending row of the account (the twin of a posted row may sit outside the window). */
  storedPending: MirrorTransaction[];
  /**
   * Whether the response was complete (no shortfall). Only then does a stored row missing from it
   * mean the provider dropped the row; otherwise nothing is removed.
   */
  complete: boolean;
}

function payee(row: MirrorTransaction): string {
  return (row.merchant ?? row.description ?? '').trim().toLowerCase();
}

function isTwin(pending: MirrorTransaction, posted: MirrorTransaction): boolean {
  return (
    pending.amount === posted.amount &&
    pending.currency === posted.currency &&
    payee(pending) === payee(posted) &&
    posted.date >= pending.date &&
    posted.date <= addDays(pending.date, PENDING_MATCH_DAYS)
  );
}

/**
 * Changes for one window, in the order an app should apply them: additions and modifications first
 * (an added posted row names the pending row it `replaces`, so the app can carry its own edits over),
 * then removals.
 */
export function diffWindow(input: WindowDiffInput): TransactionChange[] {
  const stored = new Map<string, MirrorTransaction>();
  for (const row of input.storedPending) stored.set(row.key, row);
  for (const row of input.storedInWindow) stored.set(row.key, row);

  const changes: TransactionChange[] = [];
  const added: MirrorTransaction[] = [];
  const incomingKeys = new Set<string>();
  for (const row of input.incoming) {
    incomingKeys.add(row.key);
    const previous = stored.get(row.key);
    if (!previous) added.push(row);
    else if (!sameTransaction(previous, row)) changes.push(change('modified', row));
  }

  const vanished = input.complete ? input.storedInWindow.filter((row) => !incomingKeys.has(row.key)) : [];

  // A pending row without an id that disappeared, and a posted row that is new (or was already
  // stored, having arrived before its pending row left), are twins when each has exactly one match.
  const vanishedPending = vanished.filter((row) => row.isPending && row.providerId === null);
  const replacements = new Map<string, string>();
  if (vanishedPending.length > 0) {
    const earliest = vanishedPending.reduce(
      (min, row) => (row.date < min ? row.date : min),
      vanishedPending[0]!.date,
    );
    const postedCandidates = [
      ...added.filter((row) => !row.isPending),
      ...input.storedInWindow.filter(
        (row) => !row.isPending && incomingKeys.has(row.key) && row.date >= earliest,
      ),
    ];
    for (const pending of vanishedPending) {
      const matches = postedCandidates.filter((posted) => isTwin(pending, posted));
      if (matches.length !== 1) continue;
      const posted = matches[0]!;
      const reverse = vanishedPending.filter((other) => isTwin(other, posted));
      if (reverse.length === 1 && ![...replacements.values()].includes(posted.key))
        replacements.set(pending.key, posted.key);
    }
  }
  const replacedBy = new Map([...replacements].map(([pendingKey, postedKey]) => [postedKey, pendingKey]));

  for (const row of added) {
    const replaces = replacedBy.get(row.key);
    changes.push(replaces ? { ...change('added', row), replaces } : change('added', row));
  }
  for (const row of vanished) {
    const by = replacements.get(row.key);
    const removal: TransactionChange = { ...change('removed', row), record: null };
    changes.push(by ? { ...removal, replacedBy: by } : removal);
  }
  return changes;
}

function change(op: TransactionChange['op'], row: MirrorTransaction): TransactionChange {
  return {
    entity: 'transaction',
    op,
    connectionId: row.connectionId,
    accountId: row.accountId,
    key: row.key,
    record: row,
  };
}
