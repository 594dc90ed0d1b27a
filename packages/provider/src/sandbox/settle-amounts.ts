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
  const eligible = (row: RowSeed) => row.lag > 0 && row.linger === 0;
  pickCardHolds(
    hashInts(seedKey, acct.key, day, 4),
    acct,
    rows,
    eligible,
    SETTLE_ELSEWISE_RATE,
    (row, rng) => {
      const tip = 1 + rng.int(10, 25) / 100;
      const before = Math.round(row.amountMinor / tip);
      if (before !== 0 && before !== row.amountMinor) row.pendingAmountMinor = before;
    },
  );
}

/**
 * Calls `amend` on each of the day's card purchases of an ordinary account that posts (not a
 * vanishing hold), names a merchant and is `eligible`, picked at `rate` from the stream `streamSeed`:
 * each option draws from its own stream, so turning one on or off never moves another's values.
 */
function pickCardHolds(
  streamSeed: number,
  acct: AccountModel,
  rows: RowSeed[],
  eligible: (row: RowSeed) => boolean,
  rate: number,
  amend: (row: RowSeed, rng: Rng) => void,
): void {
  if (!isOrdinary(acct.profile)) return;
  const rng = new Rng(streamSeed);
  for (const row of rows) {
    if (!row.card || row.hold || !row.merchant?.trim() || !eligible(row)) continue;
    if (rng.chance(rate)) amend(row, rng);
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
  const eligible = (row: RowSeed) => row.lag >= 2 && row.pendingAmountMinor === undefined;
  pickCardHolds(hashInts(seedKey, acct.key, day, 5), acct, rows, eligible, RELIST_RATE, (row, rng) => {
    const estimate = Math.round((row.amountMinor * rng.int(50, 90)) / 100);
    if (estimate !== 0 && estimate !== row.amountMinor) row.firstListedAmountMinor = estimate;
  });
}
