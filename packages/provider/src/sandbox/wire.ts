import type { AccountModel } from './accounts.js';
import { listedAmountMinor, type RowState } from './dataset.js';
import { DAY_MS, isoDay } from './dates.js';
import type { HoldingModel } from './holdings.js';
import { formatMinor, formatScaled, minorToNumber } from './money.js';
import { Rng, hashInts, permutedId } from './random.js';

// Canonical output follows the current docs exactly. With wire variants on, each row/account
// independently takes one of the other spellings seen in real payloads and contracts; the
// choice is hashed from the seed, so it is as reproducible as the data itself.

export interface WireContext {
  seedKey: number;
  idKey: number;
  variants: boolean;
}

/**
 * Posted ids are a bijection of (account, row, tag). Accounts whose bank re-issues ids get a tag
 * that moves with ⌊asOf / n⌋, so every posted id changes at once and never repeats an earlier
 * epoch's (for 65 535 epochs). `asOf` is the account's effective today: a frozen account keeps
 * its last ids.
 */
export function idTag(acct: AccountModel, asOfDay: number): number {
  const n = acct.reissueIdsEveryDays;
  return n === undefined ? 0 : (Math.floor(asOfDay / n) % 0xffff) + 1;
}

export function transactionId(ctx: WireContext, acct: AccountModel, state: RowState, tag: number): string {
  // A new link of an account (`historyOf`) lists the old one's rows under ids of its own, wherever it
  // stands in the list: its own permutation (ids of two permutations meet with odds of about n²/2⁶⁴).
  const key = acct.spec.historyOf === undefined ? ctx.idKey : hashInts(ctx.idKey, 0x11e7, acct.spec.id);
  return `tx_${permutedId(key, acct.ordinal, state.row.authDay, state.row.index, tag)}`;
}

export function rowDescription(state: RowState): string | null {
  return state.pending ? state.row.pendingDescription : state.row.description;
}

function variantRng(ctx: WireContext, ...parts: number[]): Rng {
  return new Rng(hashInts(ctx.seedKey, 0x7a51, ...parts));
}

export function transactionJson(ctx: WireContext, acct: AccountModel, state: RowState, tag: number): string {
  const { row, pending } = state;
  const id = pending ? null : transactionId(ctx, acct, state, tag);
  const date = isoDay(state.day);
  const description = rowDescription(state);
  if (!ctx.variants) {
    // What JSON.stringify of the object with these members in this order writes (wire.test.ts),
    // written out: the sandbox serves a million rows in a benchmark's sync, and stringify was a third
    // of its time. Only the free texts can hold characters JSON escapes.
    return (
      `{"id":${id === null ? 'null' : `"${id}"`},"accountId":${JSON.stringify(acct.spec.id)}` +
      `,"amount":${minorToNumber(listedAmountMinor(state), acct.decimals)},"currency":${JSON.stringify(acct.spec.currency)}` +
      `,"date":"${date}","merchant":${JSON.stringify(row.merchant)},"description":${JSON.stringify(description)}` +
      `,"isPending":${pending}}`
    );
  }
  const rng = variantRng(ctx, acct.ordinal, row.authDay, row.index);
  const out: Record<string, unknown> = {};
  out['id'] = id ?? (rng.chance(0.5) ? '' : null);
  const accountKey = rng.chance(0.25) ? 'account_id' : 'accountId';
  out[accountKey] = rng.chance(0.3) ? acct.id : acct.spec.id;
  out['amount'] = rng.chance(0.3)
    ? formatMinor(listedAmountMinor(state), acct.decimals)
    : minorToNumber(listedAmountMinor(state), acct.decimals);
  out['currency'] = acct.spec.currency;
  const dateForm = rng.next();
  // Midnight UTC of the row's date, so taking the first 10 chars or the UTC date is exact.
  out['date'] =
    dateForm < 0.2 ? `${date}T00:00:00.000Z` : dateForm < 0.3 ? (state.day * DAY_MS) / 1000 : date;
  out[rng.chance(0.2) ? 'merchant_name' : 'merchant'] = row.merchant;
  out['description'] = description;
  const flagForm = rng.next();
  if (flagForm < 0.15) out['isPending'] = String(pending);
  else if (flagForm < 0.3) out['pending'] = pending;
  else if (flagForm < 0.4 && !pending) {
    // Older responses simply had no flag on posted rows.
  } else out['isPending'] = pending;
  return JSON.stringify(out);
}

export function accountJson(ctx: WireContext, acct: AccountModel): Record<string, unknown> {
  const { spec } = acct;
  const out: Record<string, unknown> = {};
  const stringId = ctx.variants && variantRng(ctx, acct.ordinal, 0xacc).chance(0.4);
  out['id'] = stringId ? acct.id : spec.id;
  if (spec.connectionId !== undefined) out['connection_id'] = spec.connectionId;
  out['name'] = spec.name;
  out['institution_name'] = spec.institutionName;
  if (spec.institutionLogo !== undefined) out['institution_logo'] = spec.institutionLogo;
  out['provider'] = spec.provider;
  if (spec.listCurrency !== false) out['currency'] = spec.currency;
  out['status'] = acct.status;
  return out;
}

/** The one account (per seed) whose balance uses the contract's `current` instead of `amount`. */
export function currentBalanceOrdinal(ctx: WireContext, accountCount: number): number {
  return accountCount === 0 ? -1 : hashInts(ctx.seedKey, 0xba1) % accountCount;
}

export function balanceJson(
  ctx: WireContext,
  acct: AccountModel,
  minor: number,
  accountCount: number,
): string {
  const amount = minorToNumber(minor, acct.decimals);
  if (!ctx.variants) return JSON.stringify({ balance: { amount, currency: acct.spec.currency } });
  const asString = variantRng(ctx, acct.ordinal, 0xba2).chance(0.4);
  const value = asString ? formatMinor(minor, acct.decimals) : amount;
  const key = acct.ordinal === currentBalanceOrdinal(ctx, accountCount) ? 'current' : 'amount';
  return JSON.stringify({ balance: { [key]: value, currency: acct.spec.currency } });
}

export function holdingsJson(ctx: WireContext, acct: AccountModel, models: readonly HoldingModel[]): string {
  const d = acct.decimals;
  const holdings = models.map((m) => {
    const quantity = formatScaled(m.quantityMilli, 3);
    const quantityAsString =
      ctx.variants && variantRng(ctx, acct.ordinal, hashInts(0x401d, m.quantityMilli)).chance(0.5);
    return {
      security: m.security,
      quantity: quantityAsString ? quantity : Number(quantity),
      price: minorToNumber(m.priceMinor, d),
      value: minorToNumber(m.valueMinor, d),
      costBasis: m.costBasisMinor === null ? null : minorToNumber(m.costBasisMinor, d),
      currency: acct.spec.currency,
      raw: { [acct.spec.provider]: { id: m.id } },
    };
  });
  const total = models.reduce((sum, m) => sum + m.valueMinor, 0);
  return JSON.stringify({ holdings, totalValue: minorToNumber(total, d), currency: acct.spec.currency });
}
