/**
 * `settleKeys` settles a row with an id alone, by a lookup, and only classes of alike rows as
 * groups. This checks it against the rule written plainly (every class as a group), on responses
 * that mix both kinds, repeat ids and alike rows, against stored and superseded keys of both kinds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyClass, settleKeys } from '../src/engine/identity.js';
import type { MirrorTransaction, SupersededTransaction } from '../src/index.js';
import { transaction } from '../src/testing/fixtures.js';

function occurrence(key: string): number {
  const n = Number(key.slice(key.lastIndexOf(':') + 1));
  return Number.isSafeInteger(n) ? n : -1;
}
const byOccurrence = (a: string, b: string) => occurrence(a) - occurrence(b) || (a < b ? -1 : a > b ? 1 : 0);

/** The rule with every class settled as a group, in the order classes first appear. */
function settleEveryClassAsGroup(
  incoming: readonly MirrorTransaction[],
  stored: ReadonlyMap<string, MirrorTransaction>,
  superseded: readonly SupersededTransaction[],
) {
  const group = <T>(items: Iterable<T>, classOf: (item: T) => string) => {
    const map = new Map<string, T[]>();
    for (const item of items) map.set(classOf(item), [...(map.get(classOf(item)) ?? []), item]);
    return map;
  };
  const storedByClass = group(stored.keys(), keyClass);
  const supersededByClass = group(
    superseded.map((row) => row.key),
    keyClass,
  );
  const rows: MirrorTransaction[] = [];
  const listedSuperseded = new Map<string, MirrorTransaction>();
  for (const [cls, members] of group(incoming, (row) => keyClass(row.key))) {
    const kept = [...(storedByClass.get(cls) ?? [])].sort(byOccurrence);
    const replaced = [...(supersededByClass.get(cls) ?? [])].sort(byOccurrence);
    const used = new Set([...kept, ...replaced]);
    let next = 0;
    members.forEach((row, index) => {
      if (index < kept.length) return rows.push({ ...row, key: kept[index]! });
      const absorbed = replaced[index - kept.length];
      if (absorbed !== undefined) return listedSuperseded.set(absorbed, { ...row, key: absorbed });
      if (!cls.startsWith('h:')) return rows.push(row);
      while (used.has(`${cls}:${next}`)) next += 1;
      used.add(`${cls}:${next}`);
      return rows.push({ ...row, key: `${cls}:${next}` });
    });
  }
  return { rows, listedSuperseded };
}

const key = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'd').map((id) => `id:${id}`),
  fc.tuple(fc.constantFrom('x', 'y'), fc.nat(3)).map(([hash, n]) => `h:${hash}:${n}`),
);
const row = (k: string, amount: string) => transaction('c1', 'a1', k, { amount });

describe('settleKeys', () => {
  it('settles as the plain rule does: the same rows, keys and order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, fc.constantFrom('-1', '-2', '3')), { maxLength: 12 }),
        fc.uniqueArray(key, { maxLength: 6 }),
        fc.uniqueArray(fc.tuple(key, key), { maxLength: 4, selector: ([k]) => k }),
        (incoming, storedKeys, supersededPairs) => {
          const rows = incoming.map(([k, amount]) => row(k, amount));
          const stored = new Map(storedKeys.map((k) => [k, row(k, '0')]));
          const superseded: SupersededTransaction[] = supersededPairs.map(([k, by]) => ({
            connectionId: 'c1',
            accountId: 'a1',
            key: k,
            record: row(k, '0'),
            replacedBy: by,
            reason: 'posted',
          }));
          const actual = settleKeys(rows, stored, superseded);
          const expected = settleEveryClassAsGroup(rows, stored, superseded);
          expect(actual.rows).toEqual(expected.rows);
          expect([...actual.listedSuperseded]).toEqual([...expected.listedSuperseded]);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
