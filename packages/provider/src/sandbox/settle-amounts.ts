import type { AccountModel } from './accounts.js';
import { isOrdinary } from './accounts.js';
import type { RowSeed } from './profiles.js';
import { Rng, hashInts } from './random.js';

// A card hold is often authorised at one amount and posts at another: a tip added to a restaurant
// bill, a fuel pre-authorisation settled at what was pumped, a hotel deposit. Nothing on the wire
// links the two, and importers that match a hold to its posting on the amount (Sure, Moneydance)
// delete the hold's row and make a new one.

/** Chance that an eligible purchase is listed at another amount while pending. */
export const SETTLE_ELSEWISE_RATE = 0.2;

/**
 * Sets `pendingAmountMinor` on the day's eligible rows: card purchases of ordinary accounts that are
 * pending for at least a day, post (not a vanishing hold) and name a merchant. The posted amount is
 * the row's `amountMinor`; the hold is listed at it less a tip of 10–25 %. A purchase that settles at
 * another amount never lingers here: a hold listed beside a posting at another amount stays shown
 * (sync SPEC.md), which is another case. Picks come from their own stream, so turning this on or off
 * never moves any other generated value.
 */
export function assignSettledAmounts(
  seedKey: number,
  acct: AccountModel,
  day: number,
  rows: RowSeed[],
): void {
  if (!isOrdinary(acct.profile)) return;
  const rng = new Rng(hashInts(seedKey, acct.key, day, 4));
  for (const row of rows) {
    if (!row.card || row.lag === 0 || row.hold || row.linger > 0 || !row.merchant?.trim()) continue;
    if (!rng.chance(SETTLE_ELSEWISE_RATE)) continue;
    const tip = 1 + rng.int(10, 25) / 100;
    const before = Math.round(row.amountMinor / tip);
    if (before !== 0 && before !== row.amountMinor) row.pendingAmountMinor = before;
  }
}

/** Chance that an eligible hold is listed at an estimate on its first day. */
export const RELIST_RATE = 0.2;

/**
 * Sets `firstListedAmountMinor` on the day's eligible rows: card purchases of ordinary accounts that
 * are pending for two days or more, post, name a merchant and do not settle at another amount
 * already. The hold is listed at 50–90 % of its amount on its authorisation day and at the full
 * amount from the next day on, as an incremental authorisation is. Its own stream, as above.
 */
export function assignFirstListedAmounts(
  seedKey: number,
  acct: AccountModel,
  day: number,
  rows: RowSeed[],
): void {
  if (!isOrdinary(acct.profile)) return;
  const rng = new Rng(hashInts(seedKey, acct.key, day, 5));
  for (const row of rows) {
    if (!row.card || row.lag < 2 || row.hold || !row.merchant?.trim()) continue;
    if (row.pendingAmountMinor !== undefined || !rng.chance(RELIST_RATE)) continue;
    const estimate = Math.round((row.amountMinor * rng.int(50, 90)) / 100);
    if (estimate !== 0 && estimate !== row.amountMinor) row.firstListedAmountMinor = estimate;
  }
}
