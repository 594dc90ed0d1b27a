import type { AccountModel } from './accounts.js';
import { isOrdinary } from './accounts.js';
import type { RowSeed } from './profiles.js';
import { Rng, hashInts } from './random.js';

// Banks often keep listing a card hold for a day or more after the purchase's posted row appears,
// and nothing links the two (Lunch Flow gives pending rows no stable id). An importer that keys pending rows by content
// shows such a purchase twice unless it matches the hold to the posted row the way Sure does: same
// amount, currency and merchant, posted 0–8 days after the hold's date.

/**
 * Chance that an eligible purchase lingers. An ordinary account at 3 rows/day has about 1.9
 * eligible purchases a day (1.25 random card purchases with a pending phase, 0.67 twins), so
 * this gives ~0.57 lingering purchases a day, i.e. one every other day or so, and with the mean
 * of 1.5 days below a lingering hold is listed on roughly 55–60 % of days.
 */
export const LINGER_RATE = 0.3;

/** Days a hold stays listed beside its posted row: mostly 1 (60 %), else 2 (30 %) or 3 (10 %). */
function lingerDays(rng: Rng): number {
  const r = rng.next();
  return r < 0.6 ? 1 : r < 0.9 ? 2 : 3;
}

/**
 * Sets `linger` on the day's eligible rows: card purchases of ordinary accounts that are pending
 * for at least a day, post (not a vanishing hold) and name a merchant, since a blank merchant
 * cannot be matched to its posted row anyway. The picks come from their own stream, so turning
 * lingering on or off never moves any other generated value.
 */
export function assignLingering(seedKey: number, acct: AccountModel, day: number, rows: RowSeed[]): void {
  if (!isOrdinary(acct.profile)) return;
  const rng = new Rng(hashInts(seedKey, acct.key, day, 3));
  for (const row of rows) {
    if (!row.card || row.lag === 0 || row.hold || !row.merchant?.trim()) continue;
    if (rng.chance(LINGER_RATE)) row.linger = lingerDays(rng);
  }
}
