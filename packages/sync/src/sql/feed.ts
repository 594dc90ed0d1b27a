/**
 * Conversions between changes and feed rows. The feed keeps each change as applied: its record as
 * JSON text, and whether `replaces` / `replacedBy` were present at all, not just their values, so
 * an entry reads back with exactly the properties it was applied with (present, null or absent).
 */
import type { Change, FeedEntry } from '../model.js';
import { smallintColumn, textColumn, type Column } from './columns.js';
import type { FeedRow } from './rows.js';

/** Bits of the `link_flags` column: which link properties the change carried. */
export const LINK_FLAGS = Object.freeze({
  /** Set when the change had a `replaces` property (even `null`). */
  replaces: 1,
  /** Set when the change had a `replacedBy` property (even `null`). */
  replacedBy: 2,
} as const);

/**
 * The feed columns filled from the change, in `feedValues` order. `seq` and `at` are not among
 * them: the database assigns `seq`, and each adapter decides where the commit time comes from.
 */
export const feedColumns: readonly Column[] = Object.freeze([
  textColumn('connection_id'),
  textColumn('account_id'),
  textColumn('entity'),
  textColumn('op'),
  textColumn('key'),
  textColumn('record'),
  textColumn('replaces'),
  textColumn('replaced_by'),
  smallintColumn('link_flags'),
  textColumn('reason'),
]);

/** The change's feed column values, in `feedColumns` order: its record as JSON text, links and flags. */
export function feedValues(change: Change): (string | number | null)[] {
  // Only transaction changes declare the links, but the memory reference keeps whatever a change
  // carries, so read them off any entity.
  const links = change as { replaces?: string | null; replacedBy?: string | null; reason?: string };
  const flags =
    (links.replaces !== undefined ? LINK_FLAGS.replaces : 0) |
    (links.replacedBy !== undefined ? LINK_FLAGS.replacedBy : 0);
  return [
    change.connectionId,
    change.accountId,
    change.entity,
    change.op,
    change.key,
    change.record === null || change.record === undefined ? null : JSON.stringify(change.record),
    links.replaces ?? null,
    links.replacedBy ?? null,
    flags,
    links.reason ?? null,
  ];
}

/**
 * The feed entry a feed row holds: the change with its record parsed, its link properties set only
 * when it carried them, then `seq` (as a number) and `at`.
 */
export function feedEntryFromRow(row: FeedRow): FeedEntry {
  // The link properties are set only when the change carried them; seq and at come last, as the
  // memory storage appends them to the change.
  const entry: Record<string, unknown> = {
    entity: row.entity,
    op: row.op,
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    record: row.record === null ? null : JSON.parse(row.record),
  };
  if (row.link_flags & LINK_FLAGS.replaces) entry['replaces'] = row.replaces;
  if (row.link_flags & LINK_FLAGS.replacedBy) entry['replacedBy'] = row.replaced_by;
  if (row.reason !== null && row.reason !== undefined) entry['reason'] = row.reason;
  entry['seq'] = Number(row.seq);
  entry['at'] = row.at;
  return entry as unknown as FeedEntry;
}
