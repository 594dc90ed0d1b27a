/**
 * Which stored key each incoming row is. Rows with an id are their id. Rows without one are known
 * only by their content, and alike rows (two identical pending purchases) are told apart by an
 * occurrence number; those numbers are handed out so that a row keeps the key it had, whatever
 * order the provider lists alike rows in and whichever of them has gone.
 */
import type { MirrorTransaction, SupersededTransaction } from '../model.js';

/** The content part of a key: `id:<id>` for rows with an id, `h:<hash>` for the others. */
export function keyClass(key: string): string {
  if (!key.startsWith('h:')) return key;
  const cut = key.lastIndexOf(':');
  return cut > 1 ? key.slice(0, cut) : key;
}

function occurrence(key: string): number {
  const n = Number(key.slice(key.lastIndexOf(':') + 1));
  return Number.isSafeInteger(n) ? n : -1;
}

function byOccurrence(a: string, b: string): number {
  return occurrence(a) - occurrence(b) || (a < b ? -1 : a > b ? 1 : 0);
}

export interface KeyedWindow {
  /** The incoming rows the mirror should show, under their settled keys. */
  rows: MirrorTransaction[];
  /** Superseded keys that the provider still lists, with the row as now listed. */
  listedSuperseded: Map<string, MirrorTransaction>;
}

/**
 * Settles the keys of one response's rows against what is stored. Per content class, the stored
 * keys are taken first (the mirror keeps its rows), then the superseded ones (a replaced hold still
 * listed, absorbed so it is not added back), and only what is left over is new, under occurrence
 * numbers no stored or superseded key uses.
 */
export function settleKeys(
  incoming: readonly MirrorTransaction[],
  stored: ReadonlyMap<string, MirrorTransaction>,
  superseded: readonly SupersededTransaction[],
): KeyedWindow {
  const storedByClass = new Map<string, string[]>();
  for (const key of stored.keys()) push(storedByClass, keyClass(key), key);
  const supersededByClass = new Map<string, string[]>();
  for (const row of superseded) push(supersededByClass, keyClass(row.key), row.key);

  const incomingByClass = new Map<string, MirrorTransaction[]>();
  for (const row of incoming) push(incomingByClass, keyClass(row.key), row);

  const rows: MirrorTransaction[] = [];
  const listedSuperseded = new Map<string, MirrorTransaction>();
  for (const [cls, members] of incomingByClass) {
    const kept = (storedByClass.get(cls) ?? []).sort(byOccurrence);
    const replaced = (supersededByClass.get(cls) ?? []).sort(byOccurrence);
    const used = new Set([...kept, ...replaced]);
    let next = 0;
    members.forEach((row, index) => {
      if (index < kept.length) {
        rows.push({ ...row, key: kept[index]! });
        return;
      }
      const absorbed = replaced[index - kept.length];
      if (absorbed !== undefined) {
        listedSuperseded.set(absorbed, { ...row, key: absorbed });
        return;
      }
      if (!cls.startsWith('h:')) {
        rows.push(row);
        return;
      }
      while (used.has(`${cls}:${next}`)) next += 1;
      const key = `${cls}:${next}`;
      used.add(key);
      rows.push({ ...row, key });
    });
  }
  return { rows, listedSuperseded };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
