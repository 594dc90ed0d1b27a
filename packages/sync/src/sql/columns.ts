/**
 * Column lists of the mirror tables, in the order the codec's value arrays follow. Adapters build
 * their statements from these lists, so a statement's placeholders and the codec's values cannot
 * drift apart.
 */

/**
 * The logical type of a column. An adapter maps it to its own: PostgreSQL binds arrays of these
 * (`text[]`, `boolean[]`, `int2[]`), while SQLite needs no type and stores booleans as 0/1.
 */
export type ColumnKind = 'text' | 'boolean' | 'smallint';

export interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
}

export const textColumn = (name: string): Column => ({ name, kind: 'text' });
export const booleanColumn = (name: string): Column => ({ name, kind: 'boolean' });
export const smallintColumn = (name: string): Column => ({ name, kind: 'smallint' });

/** `a, b, c` (each name optionally prefixed, e.g. with a table alias), for column lists in SQL text. */
export function columnNames(columns: readonly Column[], prefix = ''): string {
  return columns.map((c) => `${prefix}${c.name}`).join(', ');
}
