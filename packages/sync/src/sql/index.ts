/**
 * `@finsync/sync/sql`: what the SQL storage adapters (`@finsync/sqlite`, `@finsync/postgres`) share,
 * for adapter authors. The row codecs turn model records into column values and rows back into
 * records, the same way for every database; SQL text stays with each adapter.
 */
export {
  createRowCodec,
  type ChangeIdentity,
  type FeedCodec,
  type MirrorCodec,
  type MirrorRecord,
  type RowCodec,
  type RowCodecOptions,
  type TableCodec,
} from './codec.js';
export {
  booleanColumn,
  columnNames,
  smallintColumn,
  textColumn,
  type Column,
  type ColumnKind,
} from './columns.js';
export { LINK_FLAGS, feedColumns, feedEntryFromRow, feedValues } from './feed.js';
export { feedReadBounds } from '../storage/feed-read.js';
export { fenceTime } from '../storage/fence.js';
export { claimCount, leaseDate, leaseLength, leaseWorker } from '../storage/lease-args.js';
export {
  checkMigrationOrder,
  migrationFailed,
  type MigrationResult,
  type MigrationStep,
} from './migrations.js';
export { SCAN_CHUNK, scanByKey, transactionWindowParams, type ScanCursor } from './reads.js';
export type * from './rows.js';
