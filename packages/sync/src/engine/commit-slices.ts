/**
 * How one window's changes are cut into commits. Changes without a link go first, in slices of at
 * most `batchSize`; the changes that carry a link (a row that `replaces` another, a row removed as
 * `replacedBy` another) go last, all in the window's final commit, beside its superseded rows. A
 * crash between two commits of a window then never leaves one side of a link stored without the
 * other: the window is read again, and its diff, which finds links only between a row that vanished
 * and one it has not stored yet, decides the same links again. (Split across commits, a re-issued id
 * stored under its new key without the old key removed read back as two rows, and a hold hidden
 * behind the old key came back beside its posted twin.)
 *
 * Two removals without a link go last too. One of a row that superseded rows stand behind: when that
 * row vanishes, the diff releases the rows behind it in the final commit, and a crash between the two
 * would leave them pointing at a key no longer stored, which no later read releases. And one of a row
 * the window remembers as superseded (a hold that vanished before its posting was listed, `lapsed`):
 * stored without its memory, the hold would never be seen to vanish again, and its posting would come
 * as a stranger, without `replaces` (a hold the user deleted came back as its posting).
 */
import type { TransactionChange } from '../model.js';

function isLinked(change: TransactionChange): boolean {
  const links = change as { replaces?: string | null; replacedBy?: string | null };
  return (links.replaces ?? null) !== null || (links.replacedBy ?? null) !== null;
}

/**
 * The commits of one window, in order; never empty (a window that changes nothing still has its
 * one, empty, final commit). Within each, the diff's order is kept: additions and modifications,
 * then removals. The final commit may hold more than `batchSize` changes when many go last.
 */
export function commitSlices(
  changes: readonly TransactionChange[],
  batchSize: number,
  /**
   * Keys whose removal commits last: the keys stored superseded rows stand behind (their `replacedBy`)
   * and the keys of the rows the window supersedes.
   */
  removedLast: ReadonlySet<string> = new Set(),
): TransactionChange[][] {
  const plain: TransactionChange[] = [];
  const last: TransactionChange[] = [];
  for (const change of changes) {
    const together = isLinked(change) || (change.op === 'removed' && removedLast.has(change.key));
    (together ? last : plain).push(change);
  }
  const slices: TransactionChange[][] = [];
  for (let start = 0; start < plain.length; start += batchSize)
    slices.push(plain.slice(start, start + batchSize));
  if (last.length > 0) slices.push(last);
  if (slices.length === 0) slices.push([]);
  return slices;
}
