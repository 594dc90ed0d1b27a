/**
 * Exact comparisons of the decimal text amounts are stored as, for SQLite, which has no decimal type:
 * `CAST(… AS REAL)` alone told `999999999814.05` from `999999999814.0501` wrongly (a double's step near
 * 10^12 is about 1.2e-4), where PostgreSQL's `numeric` is exact. A row far from the bound is judged by
 * its double, which cannot be wrong there; one near it by `decimal_compare`, exact, in JavaScript.
 */
import { decimalToMinorUnits, toDecimalString } from '@finsync/provider';
import type { Db } from './sqlite-schema.js';

function scaleOf(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}

/** -1, 0 or 1 as `a` is below, at or above `b`; null when either is not a decimal. */
export function compareDecimals(a: unknown, b: unknown): number | null {
  const left = toDecimalString(a);
  const right = toDecimalString(b);
  if (left === undefined || right === undefined) return null;
  const scale = Math.max(scaleOf(left), scaleOf(right));
  const difference = decimalToMinorUnits(left, scale) - decimalToMinorUnits(right, scale);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/** Registers `decimal_compare(a, b)` on `db`. */
export function registerDecimalCompare(db: Db): void {
  db.function('decimal_compare', { deterministic: true }, compareDecimals);
}

/** Doubles of two decimals this far apart, relative to their size, compare as the decimals do. */
function band(bound: string): { below: number; above: number } {
  const value = Number(bound);
  const margin = (Math.abs(value) + 1) * 1e-12;
  return { below: value - margin, above: value + margin };
}

/** `column >= bound`, exactly: the SQL and its arguments. */
export function atLeast(column: string, bound: string): { sql: string; args: unknown[] } {
  const { below, above } = band(bound);
  return {
    sql: `(CAST(${column} AS REAL) > ? OR (CAST(${column} AS REAL) >= ? AND decimal_compare(${column}, ?) >= 0))`,
    args: [above, below, bound],
  };
}

/** `column <= bound`, exactly: the SQL and its arguments. */
export function atMost(column: string, bound: string): { sql: string; args: unknown[] } {
  const { below, above } = band(bound);
  return {
    sql: `(CAST(${column} AS REAL) < ? OR (CAST(${column} AS REAL) <= ? AND decimal_compare(${column}, ?) <= 0))`,
    args: [below, above, bound],
  };
}
