/**
 * The account's holdings as mirror records, one per row the provider lists. A holding is keyed by
 * its provider id, else by its security (keys.ts). Several rows under one key (lots of one security,
 * rows with no identifiers at all) are told apart by an occurrence number (`…#1`, `…#2`; the first
 * keeps the plain key), so that every lot is kept and the values add up to the account's total.
 *
 * The provider does not say in which order it lists lots, so a lot is not keyed by its place: lots are
 * matched with the stored lots of their security by content first (a lot listed as before keeps its
 * key, wherever it is listed), then by units and cost (a lot whose price moved), then a changed lot
 * takes a stored key left over (`modified`), and only lots beyond the stored ones get new numbers,
 * none a stored key uses.
 */
import type { Holding } from '@finsync/provider';
import type { MirrorHolding } from '../model.js';
import { holdingRecord } from './keys.js';

const NUMBERED = /^(.*)#(\d+)$/;

export function holdingRecords(
  connectionId: string,
  accountId: string,
  holdings: readonly Holding[],
  stored: ReadonlyMap<string, MirrorHolding> = new Map(),
): MirrorHolding[] {
  const records = holdings.map((holding) => holdingRecord(connectionId, accountId, holding));
  const lotsByKey = new Map<string, MirrorHolding[]>();
  for (const record of records) {
    const lots = lotsByKey.get(record.key);
    if (lots) lots.push(record);
    else lotsByKey.set(record.key, [record]);
  }
  // Stored numbered keys by their plain key, lowest number first.
  const numbered = new Map<string, string[]>();
  for (const key of stored.keys()) {
    const match = NUMBERED.exec(key);
    if (!match) continue;
    const list = numbered.get(match[1]!);
    if (list) list.push(key);
    else numbered.set(match[1]!, [key]);
  }
  const number = (key: string) => Number(NUMBERED.exec(key)?.[2] ?? 0);
  const keyed = new Map<MirrorHolding, string>();
  const given = new Set<string>();
  // A listed holding's own plain key is never another's lot (a provider id such as `x#1`).
  const othersKey = (key: string, plain: string) => key !== plain && lotsByKey.has(key);
  for (const [plain, lots] of lotsByKey) {
    const free = [
      ...(stored.has(plain) ? [plain] : []),
      ...(numbered.get(plain) ?? []).sort((a, b) => number(a) - number(b)),
    ].filter((key) => !given.has(key) && !othersKey(key, plain));
    const take = (lot: MirrorHolding, key: string) => {
      keyed.set(lot, key);
      given.add(key);
    };
    // A lot listed as before, then one whose price and value moved (every trading day) but whose
    // security, units and cost are the same lot's. The stored lots are looked up by what they hold,
    // not compared one by one with every lot (4,000 lots of one security took 13 s a sync).
    for (const signature of [contentOf, unitsOf, unitsAloneOf]) {
      const bySignature = new Map<string, { keys: string[]; at: number }>();
      for (const key of free) {
        const sign = signature(stored.get(key)!);
        const bucket = bySignature.get(sign);
        if (bucket) bucket.keys.push(key);
        else bySignature.set(sign, { keys: [key], at: 0 });
      }
      for (const lot of lots) {
        if (keyed.has(lot)) continue;
        const bucket = bySignature.get(signature(lot));
        if (!bucket) continue;
        while (bucket.at < bucket.keys.length && given.has(bucket.keys[bucket.at]!)) bucket.at += 1;
        if (bucket.at < bucket.keys.length) take(lot, bucket.keys[bucket.at]!);
      }
    }
    let cursor = 0;
    let next = 0;
    for (const lot of lots) {
      if (keyed.has(lot)) continue;
      while (cursor < free.length && given.has(free[cursor]!)) cursor += 1;
      if (cursor < free.length) {
        take(lot, free[cursor]!);
        continue;
      }
      let key: string;
      do key = next === 0 ? plain : `${plain}#${next}`;
      while ((next++, stored.has(key) || given.has(key) || othersKey(key, plain)));
      keyed.set(lot, key);
      given.add(key);
    }
  }
  return records.map((lot) => (lot.key === keyed.get(lot) ? lot : { ...lot, key: keyed.get(lot)! }));
}

/** What a lot holds, its key aside: equal for a lot listed as before (`sameRecord` of the two). */
function contentOf(lot: MirrorHolding): string {
  return JSON.stringify([
    lot.connectionId,
    lot.accountId,
    ...securityOf(lot),
    lot.quantity,
    lot.price,
    lot.value,
    lot.costBasis,
    lot.currency,
  ]);
}

/**
 * A lot whose price and value moved: the same security, units, cost and currency. The security is
 * part of it: rows keyed alike for want of ids (a blank id, an id a provider reuses) would otherwise
 * swap keys between securities of the same units.
 */
function unitsOf(lot: MirrorHolding): string {
  return JSON.stringify([...securityOf(lot), lot.quantity, lot.costBasis, lot.currency]);
}

/**
 * Last, a lot of one key whose security's details changed too (a FIGI added, a rename): the same
 * units, cost and currency. Only lots no match above took get here, so securities of the same units
 * do not swap keys.
 */
function unitsAloneOf(lot: MirrorHolding): string {
  return JSON.stringify([lot.quantity, lot.costBasis, lot.currency]);
}

function securityOf(lot: MirrorHolding): Array<string | null> {
  return [lot.name, lot.tickerSymbol, lot.isin, lot.cusip, lot.figi];
}
