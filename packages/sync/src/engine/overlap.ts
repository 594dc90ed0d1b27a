/**
 * When a page's store reads may run while the page before it is still committing. The reads then
 * see the store as it was before that commit, which is only the truth if the commit cannot change
 * what they return; `independent` says so only when that is certain, and otherwise the page waits
 * for the commit, as every page did before.
 */
import type { MirrorTransaction, TransactionChange } from '../model.js';

/** What one page's commits wrote, as far as the next page's reads could see it. */
export interface PageWrites {
  /** Every key a change touched. */
  keys: ReadonlySet<string>;
  /** The earliest and latest date of any row a change touched, before or after it. */
  firstDate: string | null;
  lastDate: string | null;
  /** Whether a change touched a pending row (before or after it). */
  pending: boolean;
  /** Whether superseded rows were recorded or released. */
  superseded: boolean;
}

export function pageWrites(
  changes: readonly TransactionChange[],
  previous: ReadonlyMap<string, MirrorTransaction>,
  supersededWritten: boolean,
): PageWrites {
  const keys = new Set<string>();
  let firstDate: string | null = null;
  let lastDate: string | null = null;
  let pending = false;
  const touch = (row: MirrorTransaction | null | undefined) => {
    if (!row) return;
    if (firstDate === null || row.date < firstDate) firstDate = row.date;
    if (lastDate === null || row.date > lastDate) lastDate = row.date;
    if (row.isPending) pending = true;
  };
  for (const change of changes) {
    keys.add(change.key);
    touch(change.record);
    touch(previous.get(change.key));
  }
  return { keys, firstDate, lastDate, pending, superseded: supersededWritten };
}

/**
 * Whether the next page's reads return the same before and after `writes` commit: its window's
 * rows, the account's pending rows, its superseded rows, and the rows under its incoming keys.
 */
export function independent(
  writes: PageWrites,
  window: { from?: string | undefined; to?: string | undefined },
  incoming: readonly MirrorTransaction[],
): boolean {
  if (writes.pending || writes.superseded) return false;
  if (writes.firstDate !== null && writes.lastDate !== null) {
    const startsAfter = window.to !== undefined && writes.firstDate > window.to;
    const endsBefore = window.from !== undefined && writes.lastDate < window.from;
    if (!startsAfter && !endsBefore) return false;
  }
  for (const row of incoming) if (writes.keys.has(row.key)) return false;
  return true;
}
