/**
 * Which stored key each incoming row is. Rows with an id are their id. Rows without one are known
 * only by their content, and alike rows (two identical pending purchases) are told apart by an
 * occurrence number; those numbers are handed out so that a row keeps the key it had, whatever
 * order the provider lists alike rows in and whichever of them has gone.
 */
import type { MirrorTransaction, SupersededTransaction } from '../model.js';

/** The content part of a key: `id:<id>` (or `idh:…`) for rows with an id, `h:<hash>` for the others. */
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

/** An incoming content class with more than one member, or any `h:` class: settled as a group. */
class ClassMembers {
  constructor(
    readonly cls: string,
    readonly members: MirrorTransaction[],
  ) {}
}

/**
 * Settles the keys of one response's rows against what is stored. Per content class, the stored
 * keys are taken first (the mirror keeps its rows), then the superseded ones (a replaced hold still
 * listed, absorbed so it is not added back), and only what is left over is new, under occurrence
 * numbers no stored or superseded key uses.
 *
 * Rows with an id are nearly all of a response, and each is a class of its own (`keyTransactions`
 * drops repeated ids): such a row is settled alone, by looking its key up, without the per-class
 * lists, sets and sorts a class of alike rows needs (they were most of a first sync's allocations
 * here). The result is the same, in the same order: classes in the order they first appear.
 */
export function settleKeys(
  incoming: readonly MirrorTransaction[],
  stored: ReadonlyMap<string, MirrorTransaction>,
  superseded: readonly SupersededTransaction[],
): KeyedWindow {
  const supersededByClass = new Map<string, string[]>();
  for (const row of superseded) push(supersededByClass, keyClass(row.key), row.key);

  /** Each class once, where it first appears: a row with an id alone, or a class's members. */
  const slots: Array<MirrorTransaction | ClassMembers> = [];
  /** Where each class's slot is. */
  const slotOf = new Map<string, number>();
  let hashed = false;
  for (const row of incoming) {
    const cls = keyClass(row.key);
    const at = slotOf.get(cls);
    if (at === undefined) {
      slotOf.set(cls, slots.length);
      if (cls.startsWith('h:')) {
        hashed = true;
        slots.push(new ClassMembers(cls, [row]));
      } else slots.push(row);
      continue;
    }
    const slot = slots[at]!;
    if (slot instanceof ClassMembers) slot.members.push(row);
    else slots[at] = new ClassMembers(cls, [slot, row]);
  }

  // Only classes of alike rows (`h:`) can hold several stored keys; an id class holds its key alone.
  const storedByClass = new Map<string, string[]>();
  if (hashed)
    for (const key of stored.keys()) if (key.startsWith('h:')) push(storedByClass, keyClass(key), key);

  const rows: MirrorTransaction[] = [];
  const listedSuperseded = new Map<string, MirrorTransaction>();
  for (const slot of slots) {
    if (!(slot instanceof ClassMembers)) {
      // A row with an id, alone in its class: it keeps its key if stored, else is absorbed by a
      // superseded row of that key, else is new under it.
      const absorbed = stored.has(slot.key) ? undefined : supersededByClass.get(slot.key)?.[0];
      if (absorbed !== undefined) listedSuperseded.set(absorbed, { ...slot, key: absorbed });
      else rows.push(slot);
      continue;
    }
    const { cls, members } = slot;
    const kept = cls.startsWith('h:')
      ? (storedByClass.get(cls) ?? []).sort(byOccurrence)
      : stored.has(cls)
        ? [cls]
        : [];
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
