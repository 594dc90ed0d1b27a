/** Exact sums of the decimal strings money travels as; never through floating point. */
import { decimalToMinorUnits, decimalToSafeMinorUnits, minorUnitsToDecimal } from '@finsync/internals/money';

function scaleOf(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}

/** `a + b + …`, exactly, as a canonical decimal string. */
export function addDecimals(...values: string[]): string {
  let scale = 0;
  for (const value of values) scale = Math.max(scale, scaleOf(value));
  // Amounts are summed a row at a time (the ledger, pending totals): as safe integers, without a
  // bigint each, while the sum stays safe; a sum past 2^53 comes out unsafe.
  let small = 0;
  for (const value of values) {
    const units = decimalToSafeMinorUnits(value, scale);
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
