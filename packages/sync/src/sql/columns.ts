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

/** One column of a table, as the codecs list them. */
export interface Column {
  /** The column's name in SQL. */
  readonly name: string;
  /** Its logical type, which decides how an adapter binds it. */
  readonly kind: ColumnKind;
}

/** A text column named `name`. */
export const textColumn = (name: string): Column => ({ name, kind: 'text' });
/** A boolean column named `name` (0/1 in SQLite). */
export const booleanColumn = (name: string): Column => ({ name, kind: 'boolean' });
/** A smallint column named `name` (the feed's `link_flags`). */
export const smallintColumn = (name: string): Column => ({ name, kind: 'smallint' });

/** `a, b, c` (each name optionally prefixed, e.g. with a table alias), for column lists in SQL text. */
export function columnNames(columns: readonly Column[], prefix = ''): string {
  return columns.map((c) => `${prefix}${c.name}`).join(', ');
}
