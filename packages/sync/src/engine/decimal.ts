/** Exact sums of the decimal strings money travels as; never through floating point. */
import { decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/internals/money';

function scaleOf(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}

/**
 * `value` in units of 10^-`scale`, when that is a safe integer and `value` has at most `scale`
 * fraction digits, read without a regular expression or a bigint; else undefined, and the caller
 * takes the exact path. Amounts are summed a row at a time (the ledger, pending totals), and the
 * exact path allocated some 300 bytes a row.
 */
function safeMinorUnits(value: string, scale: number): number | undefined {
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
    units = units * 10 + (code - 0x30);
    digits += 1;
    if (fraction >= 0) fraction += 1;
  }
  // Fifteen digits are always exact in a double; more, or more fraction than the scale, go exact.
  if (digits === 0 || digits > 15 || fraction > scale) return undefined;
  for (let k = Math.max(fraction, 0); k < scale; k++) units *= 10;
  if (!Number.isSafeInteger(units)) return undefined;
  return sign === 0x2d ? -units : units;
}

/** `a + b + …`, exactly, as a canonical decimal string. */
export function addDecimals(...values: string[]): string {
  let scale = 0;
  for (const value of values) scale = Math.max(scale, scaleOf(value));
  // A sum of safe integers is exact while it stays safe: a sum past 2^53 comes out unsafe.
  let small = 0;
  for (const value of values) {
    const units = safeMinorUnits(value, scale);
    if (units === undefined || !Number.isSafeInteger((small += units))) return exactSum(values, scale);
  }
  return minorUnitsToDecimal(BigInt(small), scale);
}

function exactSum(values: readonly string[], scale: number): string {
  let total = 0n;
  for (const value of values) total += decimalToMinorUnits(value, scale);
  return minorUnitsToDecimal(total, scale);
}

/** `a − b`, exactly. */
export function subtractDecimals(a: string, b: string): string {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  return minorUnitsToDecimal(decimalToMinorUnits(a, scale) - decimalToMinorUnits(b, scale), scale);
}

export function sameDecimal(a: string, b: string): boolean {
  return subtractDecimals(a, b) === '0';
}
