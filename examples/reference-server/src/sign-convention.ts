/**
 * Which way money points, said once. Every place that flips a sign or names a direction uses this.
 *
 * - **The provider** (and so the engine's mirror and its change feed) signs amounts as a bank
 *   statement does: negative is money out, positive is money in.
 * - **The service**, and so this server's tables, its API and its filters (`min_amount`,
 *   `max_amount`, `type`), signs them the other way: positive is an expense (money out), negative
 *   is income (money in). The feed's amounts are negated once, when they are applied.
 * - **`nature`** on a write names the direction and overrides the sign of `amount`: `income` or
 *   `inflow` stores −|amount|, `expense` or `outflow` +|amount| (any case). Without it the amount is
 *   stored as sent, so a positive amount is an expense.
 * - **`classification`** in a rendered transaction comes from the stored amount's sign, as the
 *   service's does: below zero is `income`, anything else (zero too) `expense`, even when the
 *   amount rounds to 0 minor units (−0.004 USD is income of 0 cents). `amount_cents` is the
 *   magnitude in the service's minor units (`toAmountCents`: ×100 for USD and IDR, ×1 for JPY and
 *   HUF) and `signed_amount_cents` points the provider's way again: +amount_cents for income,
 *   −amount_cents for an expense.
 */
import { negateDecimal, toAmountCents } from '@finsync/provider';

/** The `nature` values a write accepts, lower case (the member is read in any case). */
export const NATURES = ['income', 'inflow', 'expense', 'outflow'] as const;

export type Nature = (typeof NATURES)[number];

/** Whether `value` (already lower-cased) is one of the `nature` values. */
export function isNature(value: string): value is Nature {
  return (NATURES as readonly string[]).includes(value);
}

/** A provider amount (negative = money out) as this server stores it (positive = expense). */
export function storedFromProvider(providerAmount: string): string {
  return negateDecimal(providerAmount);
}

/** A stored amount (positive = expense) pointed the provider's way: money in positive, as the page shows it. */
export function moneyInPositive(storedAmount: string): string {
  return negateDecimal(storedAmount);
}

/** Whether a stored amount (a canonical decimal) is money in. */
export function isMoneyIn(storedAmount: string): boolean {
  return storedAmount.startsWith('-');
}

/**
 * The amount to store for a write's canonical decimal `amount` and lower-cased `nature`: with a
 * nature its direction decides and the sent sign is ignored; without one the amount is stored as sent.
 */
export function storedFromWrite(amount: string, nature: Nature | undefined): string {
  if (nature === undefined) return amount;
  const magnitude = amount.replace(/^-/, '');
  return nature === 'income' || nature === 'inflow' ? negateDecimal(magnitude) : magnitude;
}

/** What a rendered transaction says about its direction, from the stored amount (a canonical decimal). */
export function direction(
  storedAmount: string,
  currency: string,
): {
  classification: 'income' | 'expense';
  amount_cents: number;
  signed_amount_cents: number;
} {
  const income = isMoneyIn(storedAmount);
  const cents = toAmountCents(storedAmount, currency);
  const magnitude = Number(cents < 0n ? -cents : cents);
  return {
    classification: income ? 'income' : 'expense',
    amount_cents: magnitude,
    // `|| 0`: an expense that rounds to 0 cents is 0, not -0.
    signed_amount_cents: income ? magnitude : -magnitude || 0,
  };
}
