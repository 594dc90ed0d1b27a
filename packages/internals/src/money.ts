/**
 * Exact decimal strings for money and quantities.
 *
 * Providers send amounts as JSON numbers or as strings. A JSON number has already been through a
 * binary double by the time we see it; JavaScript's shortest round-trip formatting recovers the
 * decimal that was written for anything up to 15 significant digits, which covers every real amount.
 * From there on the value only ever travels as a string.
 *
 * Public through @finsync/provider, which re-exports these names; the sync engine imports them here.
 */

import { serviceCurrency } from './currencies.js';

const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const EXPONENT_PATTERN = /^([+-]?)(\d+)(?:\.(\d+))?e([+-]?\d+)$/i;

/** A canonical decimal string: optional `-`, no leading zeros, no trailing fraction zeros, no `-0`. */
export type DecimalString = string;

function canonical(sign: string, intPart: string, fracPart: string): DecimalString {
  const int = intPart.replace(/^0+(?=\d)/, '') || '0';
  const frac = fracPart.replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  const isZero = /^0(\.0*)?$/.test(body);
  return sign === '-' && !isZero ? `-${body}` : body;
}

/**
 * The largest amount or quantity taken: 15 integer digits (the service's `decimal(19,4)` holds less
 * than 10^15, and no bank balance comes near) and 18 decimals (a token's smallest unit). Past them a
 * value is refused as not a decimal, so a corrupt `"1e999999999"` costs nothing to read.
 */
export const MAX_INTEGER_DIGITS = 15;
export const MAX_FRACTION_DIGITS = 18;

function withinBounds(value: DecimalString | undefined): DecimalString | undefined {
  if (value === undefined) return undefined;
  const point = value.indexOf('.');
  const integerDigits = (point < 0 ? value.length : point) - (value.startsWith('-') ? 1 : 0);
  const fractionDigits = point < 0 ? 0 : value.length - point - 1;
  return integerDigits <= MAX_INTEGER_DIGITS && fractionDigits <= MAX_FRACTION_DIGITS ? value : undefined;
}

function expandExponent(text: string): DecimalString | undefined {
  const match = EXPONENT_PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign = '', intPart = '', fracPart = '', expText = '0'] = match;
  const exponent = Number(expText);
  // Zeros are written out below: an exponent past any bound would be refused anyway, after
  // building a string that long (or failing to).
  if (!(Math.abs(exponent) <= intPart.length + fracPart.length + MAX_INTEGER_DIGITS + MAX_FRACTION_DIGITS))
    return undefined;
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  if (point <= 0) return canonical(sign, '0', '0'.repeat(-point) + digits);
  if (point >= digits.length) return canonical(sign, digits + '0'.repeat(point - digits.length), '');
  return canonical(sign, digits.slice(0, point), digits.slice(point));
}

/**
 * The canonical decimal of a whole number of cents, by integer arithmetic: about twice as fast as
 * formatting the double, and most amounts are whole cents. It is the same text `String(value)`
 * gives when `cents / 100 === value` and the value is under 1e13: that equality makes the value the
 * double nearest the two-place decimal, and doubles there are closer together than 0.01, so no
 * shorter decimal reads back as the same double.
 */
function formatCents(cents: number): DecimalString {
  const magnitude = cents < 0 ? -cents : cents;
  const fraction = magnitude % 100;
  const whole = (magnitude - fraction) / 100;
  const digits =
    fraction === 0
      ? `${whole}`
      : fraction % 10 === 0
        ? `${whole}.${fraction / 10}`
        : `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
  return cents < 0 ? `-${digits}` : digits;
}

/**
 * Parses a number or a decimal string (`"-23.40"`, `"+5"`, `".5"`, `"1e3"`) into a canonical decimal
 * string, or returns `undefined` when the input is not an unambiguous decimal (`"1,234.56"`, `"abc"`,
 * `NaN`, `Infinity`) or lies past the bounds (`MAX_INTEGER_DIGITS`, `MAX_FRACTION_DIGITS`).
 * Grouping separators are refused rather than guessed: `"1,234"` means 1234 in one locale and 1.234
 * in another.
 */
export function toDecimalString(value: unknown): DecimalString | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    // In this range String() writes no exponent, and its shortest round-trip digits are already the
    // canonical form (no leading or trailing zeros, no "+", -0 as "0"): the hot path of every
    // transaction list, where amounts arrive as JSON numbers.
    const magnitude = Math.abs(value);
    if (magnitude < 1e13) {
      const cents = Math.round(value * 100);
      if (cents / 100 === value) return formatCents(cents);
    }
    if (magnitude === 0 || (magnitude >= 1e-6 && magnitude < 1e21)) return withinBounds(String(value));
    return toDecimalString(String(value));
  }
  if (typeof value === 'bigint')
    return withinBounds(canonical(value < 0n ? '-' : '', String(value).replace('-', ''), ''));
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (EXPONENT_PATTERN.test(text)) return withinBounds(expandExponent(text));
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign = '', intPart = '', fracPart = ''] = match;
  if (intPart === '' && fracPart === '') return undefined;
  return withinBounds(canonical(sign, intPart, fracPart));
}

/**
 * Whether `toDecimalString(value)` gives a decimal, without building it for the common case: every
 * amount of whole cents under 1e13 has one (its fast path above); any other number is asked.
 */
export function numberHasDecimal(value: number): boolean {
  return (
    (Math.abs(value) < 1e13 && Math.round(value * 100) / 100 === value) ||
    toDecimalString(value) !== undefined
  );
}

/** A scale (digits after the point) as the helpers below take it: a whole number from 0 to 18. */
function checkedScale(scale: number): number {
  if (!Number.isInteger(scale) || scale < 0 || scale > MAX_FRACTION_DIGITS)
    throw new RangeError(
      `scale must be a whole number from 0 to ${MAX_FRACTION_DIGITS}, got ${String(scale)}`,
    );
  return scale;
}

function notDecimal(value: unknown): RangeError {
  const text = String(value);
  return new RangeError(
    `not a decimal string: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`,
  );
}

/** Negates a canonical decimal string without going through floating point. */
export function negateDecimal(value: DecimalString): DecimalString {
  // 'abc' became '-abc': anything but a decimal is refused, not signed.
  if (typeof value !== 'string' || !/^-?(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) throw notDecimal(value);
  if (/^-?0*(\.0*)?$/.test(value)) return value.replace(/^-/, '');
  return value.startsWith('-') ? value.slice(1) : `-${value}`;
}

/**
 * Converts a decimal string to integer minor units (e.g. cents) as a bigint, rounding half away from
 * zero when the value has more fraction digits than `scale`.
 */
export function decimalToMinorUnits(value: DecimalString, scale: number): bigint {
  checkedScale(scale);
  const match = typeof value === 'string' ? DECIMAL_PATTERN.exec(value) : null;
  if (!match || !/\d/.test(value)) throw notDecimal(value);
  const [, sign = '', intPart = '', fracPart = ''] = match;
  const padded = (fracPart + '0'.repeat(scale)).slice(0, scale);
  let units = BigInt((intPart || '0') + padded);
  const nextDigit = fracPart.charCodeAt(scale) - 48;
  if (nextDigit >= 5) units += 1n;
  return sign === '-' ? -units : units;
}

/**
 * `decimalToMinorUnits` as a number, read without a regular expression or a bigint, when no
 * rounding is needed (at most `scale` fraction digits) and the result is a safe integer; else
 * `undefined`, and the caller takes `decimalToMinorUnits`.
 */
export function decimalToSafeMinorUnits(value: DecimalString, scale: number): number | undefined {
  const sign = value.charCodeAt(0);
  let at = sign === 0x2d || sign === 0x2b ? 1 : 0;
  let units = 0;
  let digits = 0;
  /** Digits after the point so far; -1 before the point. */
  let fraction = -1;
  for (; at < value.length; at++) {
    const code = value.charCodeAt(at);
    if (code === 0x2e && fraction < 0) {
      fraction = 0;
      continue;
    }
    if (code < 0x30 || code > 0x39) return undefined;
    // Exact while below 2^53; past it the result stays past it, and is refused below.
    units = units * 10 + (code - 0x30);
    digits += 1;
    if (fraction >= 0) fraction += 1;
  }
  if (digits === 0 || fraction > scale) return undefined;
  for (let k = Math.max(fraction, 0); k < scale; k++) units *= 10;
  if (!Number.isSafeInteger(units)) return undefined;
  return sign === 0x2d ? -units : units;
}

/** Formats integer minor units as a canonical decimal string. */
export function minorUnitsToDecimal(units: bigint, scale: number): DecimalString {
  checkedScale(scale);
  // 1.5 became '1..5': only whole units are taken (a safe integer number is read as one).
  if (typeof units !== 'bigint') {
    if (!Number.isSafeInteger(units))
      throw new RangeError(`minor units must be a bigint or a safe integer, got ${String(units)}`);
    units = BigInt(units);
  }
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const intPart = scale === 0 ? digits : digits.slice(0, -scale);
  const fracPart = scale === 0 ? '' : digits.slice(-scale);
  return canonical(negative ? '-' : '', intPart, fracPart);
}

/**
 * Digits after the decimal point for a currency as the service shows it (2 for USD, 0 for JPY, 3 for
 * KWD, 2 for IDR): Sure's table, not Intl's (currencies.ts says why).
 */
export function currencyScale(currency: string): number {
  return serviceCurrency(currency).precision;
}
