/**
 * The shared row codec (`@finsync/sync/sql`) set up for PostgreSQL, plus how rows are bound here:
 * one array parameter per column, read back by `unnest`.
 */
import { createRowCodec, type Column, type ColumnKind, type RowTypes } from '@finsync/sync/sql';
import { arrayLiteral } from './array-literal.js';

/** Rows as pg returns them: flags are JS booleans. */
export type Row = RowTypes<'native'>;

/** A value bound into a `text[]`, `boolean[]` or `int2[]` parameter. */
export type SqlValue = string | boolean | number | null;

/** Postgres has a real boolean type, and pg reads and binds it as a JS boolean. */
export const codec = createRowCodec({ boolean: 'native' });

/** The element type of the array parameter `unnest` reads a column of this kind from. */
const ARRAY_ELEMENT_TYPE: Readonly<Record<ColumnKind, string>> = {
  text: 'text',
  boolean: 'boolean',
  smallint: 'int2',
};

export function arrayElementType(column: Column): string {
  return ARRAY_ELEMENT_TYPE[column.kind];
}

/**
 * Turns rows into one array parameter per column, each as its array literal (see array-literal.ts):
 * the shape `unnest($1::text[], $2::text[], …)` reads, so a statement takes a fixed number of
 * parameters however many rows it writes.
 */
export function toColumns(rows: readonly SqlValue[][], width: number): string[] {
  const columns: SqlValue[][] = Array.from({ length: width }, () => new Array<SqlValue>(rows.length));
  rows.forEach((row, r) => {
    for (let c = 0; c < width; c += 1) columns[c]![r] = row[c] ?? null;
  });
  return columns.map(arrayLiteral);
}
