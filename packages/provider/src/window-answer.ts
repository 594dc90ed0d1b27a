/**
 * What one answer for a window holds against what it counts: shared by the walks (transactions.ts,
 * cut-history.ts).
 */
import type { RawWindowResult } from './transactions.js';

/** The rows the answer sent. */
export function received(result: RawWindowResult): number {
  return result.paged ? result.paged.rowCount : result.rows.length;
}

/** Whether the answer counts more rows than it sent: cut short. */
export function isShort(result: RawWindowResult): boolean {
  return result.total !== null && result.total > received(result);
}

/** Rows counted in `total` that the answer did not send. */
export function shortBy(result: RawWindowResult): number {
  return Math.max(0, (result.total ?? 0) - result.rows.length);
}
