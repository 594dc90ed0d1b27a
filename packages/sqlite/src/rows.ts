/**
 * The shared row codec (`@finsync/sync/sql`) set up for SQLite, plus the column lists that are
 * SQLite's own.
 */
import { columnNames, createRowCodec, type RowTypes } from '@finsync/sync/sql';

/** Rows as better-sqlite3 returns them: flags are 0/1 integers. */
export type Row = RowTypes<'integer'>;

/** A value better-sqlite3 can bind. Booleans are not among them, hence 0/1 booleans in the codec. */
export type SqlValue = string | number | bigint | null;

/** SQLite has no boolean type: the schema stores flags as INTEGER 0/1 (with a CHECK). */
export const codec = createRowCodec({ boolean: 'integer' });

export const connectionColumns = columnNames(codec.connection.columns);
export const accountStateColumns = columnNames(codec.accountState.columns);
export const supersededColumns = columnNames(codec.superseded.columns);
export const transactionColumns = columnNames([
  ...codec.mirror.transaction.idColumns,
  ...codec.mirror.transaction.fieldColumns,
]);
export const accountColumns = columnNames([
  ...codec.mirror.account.idColumns,
  ...codec.mirror.account.fieldColumns,
]);
export const holdingColumns = columnNames([
  ...codec.mirror.holding.idColumns,
  ...codec.mirror.holding.fieldColumns,
]);
/** What reads select from the feed: `seq`, the columns filled from the change, then `at`. */
export const feedColumns = `seq, ${columnNames(codec.feed.columns)}, at`;
