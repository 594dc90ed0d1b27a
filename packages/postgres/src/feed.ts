/**
 * Conversions between changes and feed rows. The feed keeps each change as applied: its record as
 * JSON text, and whether `replaces` / `replacedBy` were present at all, not just their values.
 */
import type { Change, FeedEntry } from '@finsync/sync';
import type { Column, SqlValue } from './rows.js';

const text = (name: string): Column => ({ name, type: 'text' });

const HAS_REPLACES = 1;
const HAS_REPLACED_BY = 2;

/** The feed columns the writer fills (seq and at are the database's), in `feedValues` order. */
export const feedColumns: readonly Column[] = [
  text('connection_id'),
  text('account_id'),
  text('entity'),
  text('op'),
  text('key'),
  text('record'),
  text('replaces'),
  text('replaced_by'),
  { name: 'link_flags', type: 'int2' },
];

export function feedValues(change: Change): SqlValue[] {
  // Only transaction changes declare the links, but the memory reference keeps whatever a change
  // carries, so read them off any entity.
  const links = change as { replaces?: string | null; replacedBy?: string | null };
  const flags =
    (links.replaces !== undefined ? HAS_REPLACES : 0) |
    (links.replacedBy !== undefined ? HAS_REPLACED_BY : 0);
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
  ];
}

export interface FeedRow {
  /** int8 arrives as a string (or whatever a global type parser makes of it). */
  seq: string | number;
  connection_id: string;
  account_id: string;
  entity: Change['entity'];
  op: Change['op'];
  key: string;
  /** Selected as text and parsed here, independent of any json type parser installed globally. */
  record: string | null;
  replaces: string | null;
  replaced_by: string | null;
  link_flags: number;
  at: string;
}

export function feedEntryFromRow(row: FeedRow): FeedEntry {
  const entry: Record<string, unknown> = {
    entity: row.entity,
    op: row.op,
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    record: row.record === null ? null : JSON.parse(row.record),
  };
  if (row.link_flags & HAS_REPLACES) entry['replaces'] = row.replaces;
  if (row.link_flags & HAS_REPLACED_BY) entry['replacedBy'] = row.replaced_by;
  entry['seq'] = Number(row.seq);
  entry['at'] = row.at;
  return entry as unknown as FeedEntry;
}
