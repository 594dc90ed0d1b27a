/** Exact sums of the decimal strings money travels as; never through floating point. */
import { decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/internals/money';

function scaleOf(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}

/** `a + b + …`, exactly, as a canonical decimal string. */
export function addDecimals(...values: string[]): string {
  const scale = Math.max(0, ...values.map(scaleOf));
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
