/**
 * Holds without a merchant (some banks send none; the payee was then read from the description, which
 * for a hold is often the bank's own "Pending authorisation"): they pair with a posting without one by
 * amount, currency and date, unique both ways, whatever the two descriptions say.
 */
import { describe, expect, it } from 'vitest';
import { pairTwins } from '../src/engine/twins.js';
import type { MirrorTransaction } from '../src/model.js';
import { engineOverCraftedProvider, listedBetweenAskedDates } from './crafted-provider.js';

interface WireRow {
  id: string | null;
  amount: number;
  date: string;
  merchant: string | null;
  description: string;
  isPending: boolean;
}

async function setUp(rows: WireRow[], today: string) {
  const h = await engineOverCraftedProvider(listedBetweenAskedDates(rows), { today, accountCurrency: 'GBP' });
  const shown = async () =>
    (await h.storage.findTransactions('c1', '4711')).map(
      (r) => `${r.description}${r.isPending ? ' (hold)' : ''}`,
    );
  return { ...h, shown };
}

const hold: WireRow = {
  id: null,
  amount: -24.76,
  date: '2026-03-03',
  merchant: null,
  description: 'Pending authorisation',
  isPending: true,
};
const posting: WireRow = {
  id: 'tx1',
  amount: -24.76,
  date: '2026-03-04',
  merchant: null,
  description: 'CONTACTLESS THE RED LION',
  isPending: false,
};

describe('a hold without a merchant', () => {
  it('that posts under another description is its posting: one row, linked, not a removal and a stranger', async () => {
    const rows = [hold];
    const h = await setUp(rows, '2026-03-03');
    await h.engine.sync('c1');
    const before = await h.storage.lastSeq();
    rows.splice(0, 1, posting);
    h.today.date = '2026-03-04';
    await h.engine.sync('c1');
    expect(await h.shown()).toEqual(['CONTACTLESS THE RED LION']);
    const feed = (await h.storage.readChanges({ after: before, limit: 100 })).filter(
      (e) => e.entity === 'transaction',
    );
    const removed = feed.find((e) => e.op === 'removed')!;
    const added = feed.find((e) => e.op === 'added')!;
    expect(removed).toMatchObject({ replacedBy: added.key, reason: 'posted' });
    expect(added).toMatchObject({ replaces: removed.key, reason: 'posted' });
  });

  it('listed beside its posting is shown once, as the posting', async () => {
    const h = await setUp([hold, posting], '2026-03-04');
    await h.engine.sync('c1');
    expect(await h.shown()).toEqual(['CONTACTLESS THE RED LION']);
  });
});

const mirror = (
  key: string,
  date: string,
  merchant: string | null,
  isPending: boolean,
): MirrorTransaction => ({
  connectionId: 'c1',
  accountId: 'a',
  key,
  providerId: isPending ? null : key.slice(3),
  amount: '-24.76',
  currency: 'GBP',
  date,
  merchant,
  description: isPending ? 'Pending authorisation' : `PAYMENT ${key}`,
  isPending,
});
const pairs = (map: Map<string, MirrorTransaction>) =>
  [...map].map(([key, to]) => `${key}->${to.key}`).sort();

describe('pairing holds without a merchant', () => {
  it('two such holds and one such posting: nobody can tell which, so none pairs', () => {
    const holds = [mirror('h:a', '2026-03-01', null, true), mirror('h:b', '2026-03-02', null, true)];
    const posted = [mirror('id:p', '2026-03-03', null, false)];
    expect(pairs(pairTwins(holds, [posted, []], { sameDay: true }))).toEqual([]);
  });

  it('never takes a posting that names a merchant, nor one a hold with a merchant could be the twin of', () => {
    const holds = [mirror('h:a', '2026-03-01', null, true)];
    expect(
      pairs(pairTwins(holds, [[mirror('id:p', '2026-03-02', 'Cafe', false)], []], { sameDay: true })),
    ).toEqual([]);
    // A hold named "PAYMENT id:q" by its merchant, left unpaired, could be the posting's own.
    const rival = { ...mirror('h:r', '2026-03-01', 'PAYMENT id:q', true) };
    const posted = [mirror('id:q', '2026-03-02', null, false), mirror('id:s', '2026-03-02', null, false)];
    const found = pairs(pairTwins([...holds, rival], [posted, []], { sameDay: true }));
    expect(found).toContain('h:r->id:q');
    expect(found).toContain('h:a->id:s');
  });

  it('pairs a hold and a posting that both name their merchant by the merchant, as before', () => {
    const holds = [mirror('h:a', '2026-03-01', 'Cafe', true)];
    const posted = [mirror('id:p', '2026-03-02', 'Cafe', false)];
    expect(pairs(pairTwins(holds, [posted, []], { sameDay: true }))).toEqual(['h:a->id:p']);
  });
});
