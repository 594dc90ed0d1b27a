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
import { holdingRecord, sameRecord } from './keys.js';

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
      free.splice(free.indexOf(key), 1);
    };
    // A lot listed as before, then one whose price and value moved (every trading day) but whose
    // units and cost are the same lot's.
    for (const alike of [sameRecord, sameUnits])
      for (const lot of lots) {
        if (keyed.has(lot)) continue;
        const same = free.find((key) => alike(stored.get(key), { ...lot, key }));
        if (same !== undefined) take(lot, same);
      }
    let next = 0;
    for (const lot of lots) {
      if (keyed.has(lot)) continue;
      if (free.length > 0) {
        take(lot, free[0]!);
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

function sameUnits(stored: MirrorHolding | undefined, lot: MirrorHolding): boolean {
  return (
    stored !== undefined &&
    stored.quantity === lot.quantity &&
    stored.costBasis === lot.costBasis &&
    stored.currency === lot.currency
  );
}
