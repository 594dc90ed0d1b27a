/** The one constructor of the transactions the client hands out, fast path and full schema alike. */
import type { Transaction } from './schemas.js';

/**
 * A transaction as the client hands it out, made by `new` and not by an object literal, yet a plain
 * object all the same: its prototype is `Object.prototype`.
 *
 * V8 follows where the objects of each object literal go (its "allocation site"). When a
 * young-generation collection finds all of a site's objects alive, V8 allocates that site's later
 * objects straight in the old generation ("pretenuring"). A held answer's rows are all alive while it
 * arrives, so the row literal was pretenured. Every row read back from a spilled answer then went to
 * the old generation, with what it refers to. A 1M-row first sync promoted some 200 MiB instead of
 * 50-90, and its heap peaked some 25 MiB higher (docs/benchmarks.md, eighteenth session). The
 * engine's records and changes are made the same way. Objects made by `new` have no such site.
 *
 * The fast path makes its rows here, and the full schema's are made again here (`remadeRows`).
 */
function transactionRow(
  this: Transaction,
  id: Transaction['id'],
  accountId: Transaction['accountId'],
  amount: Transaction['amount'],
  currency: Transaction['currency'],
  date: Transaction['date'],
  merchant: Transaction['merchant'],
  description: Transaction['description'],
  isPending: Transaction['isPending'],
): void {
  this.id = id;
  this.accountId = accountId;
  this.amount = amount;
  this.currency = currency;
  this.date = date;
  this.merchant = merchant;
  this.description = description;
  this.isPending = isPending;
}
export const TransactionRow = transactionRow as unknown as {
  new (...fields: Parameters<typeof transactionRow>): Transaction;
  prototype: object;
};
TransactionRow.prototype = Object.prototype;

/**
 * The full schema's rows, made again by `TransactionRow`: the schema builds each with an object
 * literal of its own, which a held answer would get pretenured the same way. Copied at once, those
 * die young. A 1M-row first sync whose rows all took the full schema (the sandbox's wire variants)
 * peaked at 204–232 MiB before, having promoted 423–1,764 MiB.
 */
export function remadeRows(rows: readonly Transaction[]): Transaction[] {
  const remade = new Array<Transaction>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    remade[i] = new TransactionRow(
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
  return remade;
}
