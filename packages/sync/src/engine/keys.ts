import { createHash } from 'node:crypto';
import { plainObjectConstructor } from '@finsync/internals/plain-object';
import type { Holding, Transaction } from '@finsync/provider';
import type { MirrorHolding, MirrorTransaction } from '../model.js';

function digest(parts: Array<string | null>): string {
  // \u001f cannot occur in the fields, so distinct tuples never collide by concatenation.
  return createHash('sha256')
    .update(parts.map((p) => p ?? '\u0000').join('\u001f'))
    .digest('hex')
    .slice(0, 20);
}

/**
 * The longest provider id used in a key as it is. A key is part of every storage's primary key, and
 * PostgreSQL's indexes take at most some 2.7 KB a row: a longer id made its account unsyncable there.
 * Longer ids are keyed by their hash, under a prefix no plain id key has.
 */
export const MAX_KEYED_ID_LENGTH = 256;

function idKey(id: string): string {
  return id.length <= MAX_KEYED_ID_LENGTH ? `id:${id}` : `idh:${digest([id])}`;
}

/**
 * A row's mirror record: a plain object made by `new`, not by an object literal, so V8 does not
 * pretenure a page's records (see `@finsync/internals/plain-object`).
 */
const KeyedRecord = plainObjectConstructor(function (
  this: MirrorTransaction,
  connectionId: string,
  accountId: string,
  key: string,
  row: Transaction,
  accountCurrency: string | null,
) {
  this.connectionId = connectionId;
  this.accountId = accountId;
  this.key = key;
  this.providerId = row.id;
  this.amount = row.amount;
  this.currency = row.currency ?? accountCurrency;
  this.date = row.date;
  this.merchant = row.merchant;
  this.description = row.description;
  this.isPending = row.isPending;
});

/**
 * Gives every row of one provider response a key. Rows with an id use it. Rows without one are
 * keyed by their content plus their occurrence among identical rows in the same response, so two
 * identical pending purchases stay two rows, and the same two come back as the same two keys.
 * A row listed without a currency is recorded in the account's (`accountCurrency`, when known);
 * its key is made from what the provider listed, so it does not move when the account's is learnt.
 *
 * An id listed twice in one response is one row, and the listing kept is the one a bank would list
 * last: the posted copy over a pending one (a hold that posted under its id, its stale copy still
 * listed), else the later-dated, else the later-listed, since the provider promises no order.
 * `duplicateIds` counts the copies left out.
 */
export function keyTransactions(
  connectionId: string,
  accountId: string,
  rows: Iterable<Transaction>,
  accountCurrency: string | null = null,
): { records: MirrorTransaction[]; duplicateIds: number } {
  const positionOfId = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const records: MirrorTransaction[] = [];
  let duplicateIds = 0;
  for (const row of rows) {
    let key: string;
    if (row.id !== null) {
      const position = positionOfId.get(row.id);
      if (position !== undefined) {
        duplicateIds += 1;
        const kept = records[position]!;
        if (listedLast(row, kept))
          records[position] = new KeyedRecord(connectionId, accountId, kept.key, row, accountCurrency);
        continue;
      }
      positionOfId.set(row.id, records.length);
      key = idKey(row.id);
    } else {
      const hash = digest([
        accountId,
        row.date,
        row.amount,
        row.currency,
        row.merchant,
        row.description,
        row.isPending ? 'p' : 'b',
      ]);
      const n = occurrences.get(hash) ?? 0;
      occurrences.set(hash, n + 1);
      key = `h:${hash}:${n}`;
    }
    records.push(new KeyedRecord(connectionId, accountId, key, row, accountCurrency));
  }
  return { records, duplicateIds };
}

/** Whether `row`, listed after `kept` under the same id, is the later state of the two. */
function listedLast(row: Transaction, kept: MirrorTransaction): boolean {
  if (row.isPending !== kept.isPending) return !row.isPending;
  return row.date >= kept.date;
}

export function sameTransaction(a: MirrorTransaction, b: MirrorTransaction): boolean {
  return (
    a.amount === b.amount &&
    a.currency === b.currency &&
    a.date === b.date &&
    a.merchant === b.merchant &&
    a.description === b.description &&
    a.isPending === b.isPending &&
    a.providerId === b.providerId
  );
}

/** A holding's record under its plain key: its provider id, else its security (holding-lots.ts settles lots). */
export function holdingRecord(connectionId: string, accountId: string, holding: Holding): MirrorHolding {
  const s = holding.security;
  return {
    connectionId,
    accountId,
    key:
      holding.providerId !== null
        ? idKey(holding.providerId)
        : `s:${digest([s.isin, s.cusip, s.figi, s.tickerSymbol, s.name])}`,
    name: s.name,
    tickerSymbol: s.tickerSymbol,
    isin: s.isin,
    cusip: s.cusip,
    figi: s.figi,
    quantity: holding.quantity,
    price: holding.price,
    value: holding.value,
    costBasis: holding.costBasis,
    currency: holding.currency,
  };
}

/** Structural equality for mirror records (plain objects of primitives, nested at most one level), key order aside. */
export function sameRecord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameRecord(left[key], right[key])) return false;
  return true;
}
