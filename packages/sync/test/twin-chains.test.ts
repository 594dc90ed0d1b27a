/**
 * Completing the pairs of one twin group moves paired holds along to other postings they fit: a long
 * chain of look-alike holds (the same amount at one merchant, days apart) is walked without
 * overflowing the call stack, and every hold still ends up with a twin.
 */
import { addDays } from '@finsync/internals/calendar';
import { describe, expect, it } from 'vitest';
import { completePairs } from '../src/engine/twins.js';
import type { MirrorTransaction } from '../src/model.js';

const row = (key: string, date: string, isPending: boolean): MirrorTransaction =>
  ({
    connectionId: 'c',
    accountId: 'a',
    key,
    providerId: isPending ? null : key,
    amount: '-3.50',
    currency: 'GBP',
    date,
    merchant: 'Cafe',
    description: null,
    isPending,
  }) as MirrorTransaction;

/** A posting fits a hold when it is dated on the hold's day or up to 8 days after. */
const fits = (hold: MirrorTransaction, posted: MirrorTransaction) =>
  posted.date >= hold.date && posted.date <= addDays(hold.date, 8);

describe('completing the pairs of a twin group', () => {
  it('moves a chain of 12,000 paired holds one posting along, so the one left over gets a twin', () => {
    const n = 12_000;
    const day = (i: number) => addDays('2020-01-01', i);
    const holds: MirrorTransaction[] = [];
    const postings: MirrorTransaction[] = [];
    const pairs = new Map<string, MirrorTransaction>();
    // Hold i (day 2i) holds posting i (day 2i+2); the free posting is on day 0, before all of them,
    // and the open hold (day 2n) fits only the last paired posting: each hold must move back by one.
    for (let i = 0; i < n; i++) {
      const hold = row(`h${i}`, day(2 * i), true);
      const posting = row(`p${i}`, day(2 * i + 2), false);
      holds.push(hold);
      postings.push(posting);
      pairs.set(hold.key, posting);
    }
    const open = row('x', day(2 * n), true);
    holds.push(open);
    postings.push(row('free', day(0), false));

    completePairs(holds, [open], postings, pairs, fits);

    expect(pairs.get('x')?.key).toBe(`p${n - 1}`);
    expect(pairs.get('h0')?.key).toBe('free');
    for (let i = 1; i < n; i++) expect(pairs.get(`h${i}`)?.key).toBe(`p${i - 1}`);
    // One hold to a posting, every posting to one hold.
    expect(new Set([...pairs.values()].map((p) => p.key)).size).toBe(pairs.size);
  });

  it('leaves the pairs as they were when the open hold fits no posting that can be freed', () => {
    const holds = [row('h', '2026-03-01', true), row('x', '2026-03-20', true)];
    const postings = [row('p', '2026-03-02', false)];
    const pairs = new Map([['h', postings[0]!]]);
    completePairs(holds, [holds[1]!], postings, pairs, fits);
    expect([...pairs].map(([hold, posting]) => [hold, posting.key])).toEqual([['h', 'p']]);
  });
});
