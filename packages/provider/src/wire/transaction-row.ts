/** The one constructor of the transactions the client hands out, fast path and full schema alike. */
import { plainObjectConstructor } from '@finsync/internals/plain-object';
import type { Transaction } from './schemas.js';

/**
 * A transaction as the client hands it out: a plain object made by `new`, not by an object literal,
 * so V8 does not pretenure a whole-history answer's rows (see `@finsync/internals/plain-object`). The
 * fast path makes its rows here, and the full schema's are made again here (`remadeRows`).
 */
export const TransactionRow = plainObjectConstructor(function (
  this: Transaction,
  id: Transaction['id'],
  accountId: Transaction['accountId'],
  amount: Transaction['amount'],
  currency: Transaction['currency'],
  date: Transaction['date'],
  merchant: Transaction['merchant'],
  description: Transaction['description'],
  isPending: Transaction['isPending'],
) {
  this.id = id;
  this.accountId = accountId;
  this.amount = amount;
  this.currency = currency;
  this.date = date;
  this.merchant = merchant;
  this.description = description;
  this.isPending = isPending;
});

/**
 * A row of the full schema, made again by `TransactionRow`: the schema builds each with an object
 * literal of its own, which a held answer would get pretenured the same way. Copied at once, those
 * die young. A 1M-row first sync whose rows all took the full schema (the sandbox's wire variants)
 * peaked at 204–232 MiB before, having promoted 423–1,764 MiB.
 */
export function remadeRow(row: Transaction): Transaction {
  return new TransactionRow(
    row.id,
    row.accountId,
    row.amount,
    row.currency,
    row.date,
    row.merchant,
    row.description,
    row.isPending,
  );
}

/** The full list schema's rows, each made again (`remadeRow`). */
export function remadeRows(rows: readonly Transaction[]): Transaction[] {
  return rows.map(remadeRow);
}
