/** SPEC.md's "Replacement rules", case by case, on the pure window diff. */
import { describe, expect, it } from 'vitest';
import { diffWindow, type WindowDiffInput } from '../src/engine/diff.js';
import type { MirrorTransaction, SupersededTransaction } from '../src/index.js';
import { transaction } from '../src/testing/fixtures.js';

const hold = (key: string, overrides: Partial<MirrorTransaction> = {}) =>
  transaction('c1', 'a1', key, {
    isPending: true,
    providerId: null,
    date: '2026-06-28',
    amount: '-5.69',
    merchant: 'Corner Cafe',
    description: 'Pending authorisation',
    ...overrides,
  });
const posted = (id: string, overrides: Partial<MirrorTransaction> = {}) =>
  transaction('c1', 'a1', `id:${id}`, {
    date: '2026-06-29',
    amount: '-5.69',
    merchant: 'Corner Cafe',
    description: 'CARD PAYMENT TO CORNER CAFE',
    ...overrides,
  });

/** A superseded row: `row` is listed but not shown, and `replacedBy` stands for it. */
const behind = (
  row: MirrorTransaction,
  replacedBy: string,
  reason: SupersededTransaction['reason'] = 'posted',
): SupersededTransaction => ({
  connectionId: 'c1',
  accountId: 'a1',
  key: row.key,
  record: row,
  replacedBy,
  reason,
});

function diff(input: Partial<WindowDiffInput> & Pick<WindowDiffInput, 'incoming'>) {
  const stored = input.storedInWindow ?? [];
  return diffWindow({
    storedInWindow: stored,
    storedPending: stored.filter((row) => row.isPending),
    superseded: [],
    window: { from: '2026-06-01', to: '2026-06-30' },
    complete: true,
    ...input,
  });
}

/** The changes as `op key (link)` lines, easy to read in a failure. */
function summary(changes: ReturnType<typeof diffWindow>['changes']): string[] {
  return changes.map((c) => {
    const link = c.replaces
      ? ` replaces ${c.replaces} (${c.reason})`
      : c.replacedBy
        ? ` replacedBy ${c.replacedBy} (${c.reason})`
        : '';
    return `${c.op} ${c.key}${link}`;
  });
}

describe('a hold listed beside its posted twin', () => {
  it('is replaced as soon as the posted row arrives, while the bank still lists the hold', () => {
    const h = hold('h:aa:0');
    const p = posted('tx_1');
    const result = diff({ incoming: [h, p], storedInWindow: [h] });
    expect(summary(result.changes)).toEqual([
      'added id:tx_1 replaces h:aa:0 (posted)',
      'removed h:aa:0 replacedBy id:tx_1 (posted)',
    ]);
    expect(result.superseded).toMatchObject([{ key: 'h:aa:0', replacedBy: 'id:tx_1', reason: 'posted' }]);
  });

  it('is not added back by a later response that still lists it', () => {
    const h = hold('h:aa:0');
    const p = posted('tx_1');
    const superseded = [behind(h, p.key)];
    const result = diff({ incoming: [h, p], storedInWindow: [p], superseded });
    expect(result.changes).toEqual([]);
    expect(result.hidden).toBe(1);
    expect(result.released).toEqual([]);
  });

  it('seen for the first time together with its twin, is never shown', () => {
    const result = diff({ incoming: [hold('h:aa:0'), posted('tx_1')] });
    expect(summary(result.changes)).toEqual(['added id:tx_1']);
    expect(result.superseded).toMatchObject([{ key: 'h:aa:0', replacedBy: 'id:tx_1' }]);
    expect(result.hidden).toBe(1);
  });

  it('comes back in its twin’s place when the twin disappears and the hold is still listed', () => {
    const h = hold('h:aa:0');
    const p = posted('tx_1');
    const superseded = [behind(h, p.key)];
    const result = diff({ incoming: [h], storedInWindow: [p], superseded });
    expect(summary(result.changes)).toEqual([
      'added h:aa:0 replaces id:tx_1 (reverted)',
      'removed id:tx_1 replacedBy h:aa:0 (reverted)',
    ]);
    expect(result.released).toEqual([{ connectionId: 'c1', accountId: 'a1', key: 'h:aa:0' }]);
  });

  it('is forgotten with its twin when both disappear', () => {
    const h = hold('h:aa:0');
    const p = posted('tx_1');
    const superseded = [behind(h, p.key)];
    const result = diff({ incoming: [], storedInWindow: [p], superseded });
    expect(summary(result.changes)).toEqual(['removed id:tx_1']);
    expect(result.released).toEqual([{ connectionId: 'c1', accountId: 'a1', key: 'h:aa:0' }]);
  });

  it('identical holds beside as many identical posted rows are all replaced', () => {
    const holds = [hold('h:aa:0'), hold('h:aa:1')];
    const twins = [posted('tx_1'), posted('tx_2')];
    const result = diff({ incoming: [...holds, ...twins], storedInWindow: holds });
    expect(result.changes.filter((c) => c.op === 'removed').map((c) => c.replacedBy)).toEqual([
      'id:tx_1',
      'id:tx_2',
    ]);
  });

  it('two identical holds beside one posted row: one is a purchase of its own, so neither is hidden', () => {
    const holds = [hold('h:aa:0'), hold('h:aa:1')];
    const result = diff({ incoming: [...holds, posted('tx_1')], storedInWindow: holds });
    expect(summary(result.changes)).toEqual(['added id:tx_1']);
    expect(result.superseded).toEqual([]);
  });

  it('a posting dated the hold’s own day is another purchase at the same price, not the hold', () => {
    // Yesterday's coffee posts today beside today's coffee, still pending: both are shown.
    const today = hold('h:aa:0', { date: '2026-06-29' });
    const result = diff({ incoming: [today, posted('tx_1')], storedInWindow: [today] });
    expect(summary(result.changes)).toEqual(['added id:tx_1']);
    // Once the hold is gone, a posting of its own day may be its twin.
    const gone = diff({ incoming: [posted('tx_1')], storedInWindow: [today] });
    expect(summary(gone.changes)).toEqual([
      'added id:tx_1 replaces h:aa:0 (posted)',
      'removed h:aa:0 replacedBy id:tx_1 (posted)',
    ]);
  });

  it('a posted row that already stands for a hold cannot take a second one', () => {
    const first = hold('h:aa:0');
    const p = posted('tx_1', { date: '2026-06-29' });
    const superseded = [behind(first, p.key)];
    const second = hold('h:bb:0', { date: '2026-06-29' });
    const result = diff({ incoming: [p, second], storedInWindow: [p, second], superseded });
    expect(result.changes).toEqual([]);
  });

  it('a vanished hold takes its new posted twin, not an older posted row of the same price', () => {
    const h = hold('h:aa:0', { date: '2026-06-27' });
    const older = posted('tx_old', { date: '2026-06-27' });
    const twin = posted('tx_new', { date: '2026-06-29' });
    const result = diff({ incoming: [older, twin], storedInWindow: [h, older] });
    expect(summary(result.changes)).toEqual([
      'added id:tx_new replaces h:aa:0 (posted)',
      'removed h:aa:0 replacedBy id:tx_new (posted)',
    ]);
  });
});

describe('a hold that settles at another amount', () => {
  // A tip added to a restaurant bill, a fuel pre-authorisation settled at what was pumped.
  const stored = hold('h:aa:0', { date: '2026-06-27', amount: '-20.00' });

  it('is one purchase with its posting when the hold vanishes and nothing else can be meant', () => {
    const tipped = posted('tx_1', { amount: '-23.00' });
    const result = diff({ incoming: [tipped], storedInWindow: [stored] });
    expect(summary(result.changes)).toEqual([
      'added id:tx_1 replaces h:aa:0 (posted)',
      'removed h:aa:0 replacedBy id:tx_1 (posted)',
    ]);
    expect(result.superseded).toMatchObject([{ key: 'h:aa:0', replacedBy: 'id:tx_1', reason: 'posted' }]);
  });

  it('is not linked where another posting or another hold of the payee could be meant', () => {
    const unlinked = ['added id:tx_1', 'removed h:aa:0'];
    // Two new postings of the payee.
    const two = diff({
      incoming: [posted('tx_1', { amount: '-23.00' }), posted('tx_2', { amount: '-8.00' })],
      storedInWindow: [stored],
    });
    expect(summary(two.changes)).toEqual(['added id:tx_1', 'added id:tx_2', 'removed h:aa:0']);
    // A stored posting of the payee inside the hold's days besides the new one.
    const earlier = posted('tx_0', { date: '2026-06-28', amount: '-4.00' });
    const besideStored = diff({
      incoming: [earlier, posted('tx_1', { amount: '-23.00' })],
      storedInWindow: [stored, earlier],
    });
    expect(summary(besideStored.changes)).toEqual(unlinked);
    // Another hold of the payee, still listed, could be the posting's own.
    const other = hold('h:bb:0', { date: '2026-06-28', amount: '-22.00' });
    const rival = diff({
      incoming: [other, posted('tx_1', { amount: '-23.00' })],
      storedInWindow: [stored, other],
    });
    expect(summary(rival.changes)).toEqual(unlinked);
  });

  it('is not linked to a posting that was stored before the hold went, or of another kind', () => {
    const unlinked = ['added id:tx_1', 'removed h:aa:0'];
    const before = posted('tx_1', { amount: '-23.00' });
    expect(summary(diff({ incoming: [before], storedInWindow: [stored, before] }).changes)).toEqual([
      'removed h:aa:0',
    ]);
    for (const overrides of [
      { amount: '23.00' }, // money the other way: a refund
      { currency: 'USD' },
      { merchant: 'Other Place', description: 'CARD PAYMENT TO OTHER PLACE' },
      { date: '2026-06-26' }, // before the hold
      { date: '2026-07-06' }, // more than 8 days after it
    ]) {
      const result = diff({
        incoming: [posted('tx_1', { amount: '-23.00', ...overrides })],
        storedInWindow: [stored],
        window: { from: '2026-06-01', to: '2026-07-31' },
      });
      expect(summary(result.changes), JSON.stringify(overrides)).toEqual(unlinked);
    }
  });

  it('listed again beside that posting, is shown again: nothing says the two are one purchase', () => {
    const tipped = posted('tx_1', { amount: '-23.00' });
    const superseded = [behind(stored, tipped.key)];
    const result = diff({ incoming: [stored, tipped], storedInWindow: [tipped], superseded });
    expect(summary(result.changes)).toEqual(['added h:aa:0']);
    expect(result.released).toEqual([{ connectionId: 'c1', accountId: 'a1', key: 'h:aa:0' }]);
    expect(result.hidden).toBe(0);
    // A hold linked to a posting of its own amount stays hidden, as before.
    const twin = posted('tx_2', { amount: '-20.00' });
    const same = diff({
      incoming: [stored, twin],
      storedInWindow: [twin],
      superseded: [{ ...superseded[0]!, replacedBy: twin.key }],
    });
    expect(same.changes).toEqual([]);
    expect(same.hidden).toBe(1);
  });

  it('is not linked where the 8 days of the hold or the posting reach into another window of the read', () => {
    const tipped = posted('tx_1', { amount: '-23.00' });
    const split = (window: { from: string; to: string }) =>
      summary(
        diff({
          incoming: [tipped],
          storedInWindow: [stored],
          window,
          read: { from: '2026-06-01', to: '2026-07-31' },
        }).changes,
      );
    // The hold's days (to 5 July) go past the window's end: the next window may hold another posting.
    expect(split({ from: '2026-06-01', to: '2026-06-30' })).toEqual(['added id:tx_1', 'removed h:aa:0']);
    // The posting's days (from 21 June) start before the window: an earlier window may have had a hold.
    expect(split({ from: '2026-06-25', to: '2026-07-31' })).toEqual(['added id:tx_1', 'removed h:aa:0']);
    // Where the read itself ends, nothing lies beyond.
    expect(split({ from: '2026-06-01', to: '2026-07-31' })).toEqual([
      'added id:tx_1 replaces h:aa:0 (posted)',
      'removed h:aa:0 replacedBy id:tx_1 (posted)',
    ]);
  });

  it('is not linked where a hold that comes back in this window could be the posting’s', () => {
    // h:rr:0 stood behind tx_q; tx_q went and h:rr:0 is listed again, so it comes back.
    const back = hold('h:rr:0', { date: '2026-06-27', amount: '-21.00' });
    const q = posted('tx_q', { date: '2026-06-27', amount: '-21.00' });
    const result = diff({
      incoming: [back, posted('tx_1', { amount: '-23.00' })],
      storedInWindow: [stored, q],
      superseded: [behind(back, q.key)],
    });
    expect(summary(result.changes)).toEqual([
      'added id:tx_1',
      'added h:rr:0 replaces id:tx_q (reverted)',
      'removed h:aa:0',
      'removed id:tx_q replacedBy h:rr:0 (reverted)',
    ]);
  });

  it('takes a posting of its own amount first', () => {
    const twin = posted('tx_1', { amount: '-20.00' });
    const other = posted('tx_2', { amount: '-23.00' });
    const result = diff({ incoming: [twin, other], storedInWindow: [stored] });
    expect(summary(result.changes)).toEqual([
      'added id:tx_1 replaces h:aa:0 (posted)',
      'added id:tx_2',
      'removed h:aa:0 replacedBy id:tx_1 (posted)',
    ]);
  });
});

describe('a bank that re-issues ids', () => {
  it('links the vanished row and the new one with the same content', () => {
    const old = posted('tx_1');
    const result = diff({ incoming: [posted('tx_9')], storedInWindow: [old] });
    expect(summary(result.changes)).toEqual([
      'added id:tx_9 replaces id:tx_1 (id-changed)',
      'removed id:tx_1 replacedBy id:tx_9 (id-changed)',
    ]);
  });

  it('keeps two genuine identical purchases two, and a third identical new row is new', () => {
    const stored = [posted('tx_1'), posted('tx_2')];
    const result = diff({
      incoming: [posted('tx_7'), posted('tx_8'), posted('tx_9')],
      storedInWindow: stored,
    });
    expect(summary(result.changes)).toEqual([
      'added id:tx_7 replaces id:tx_1 (id-changed)',
      'added id:tx_8 replaces id:tx_2 (id-changed)',
      'added id:tx_9',
      'removed id:tx_1 replacedBy id:tx_7 (id-changed)',
      'removed id:tx_2 replacedBy id:tx_8 (id-changed)',
    ]);
  });

  it('does not link rows whose content differs, or rows of a window cut short', () => {
    const old = posted('tx_1');
    expect(
      summary(diff({ incoming: [posted('tx_9', { amount: '-5.7' })], storedInWindow: [old] }).changes),
    ).toEqual(['added id:tx_9', 'removed id:tx_1']);
    expect(
      summary(diff({ incoming: [posted('tx_9')], storedInWindow: [old], complete: false }).changes),
    ).toEqual(['added id:tx_9']);
  });

  it('moves a hold’s claim to the new id, and an old id listed again is absorbed', () => {
    const h = hold('h:aa:0');
    const old = posted('tx_1');
    const superseded = [behind(h, old.key)];
    const result = diff({ incoming: [h, posted('tx_9')], storedInWindow: [old], superseded });
    expect(summary(result.changes)).toEqual([
      'added id:tx_9 replaces id:tx_1 (id-changed)',
      'removed id:tx_1 replacedBy id:tx_9 (id-changed)',
    ]);
    expect(result.superseded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'h:aa:0', replacedBy: 'id:tx_9' }),
        expect.objectContaining({ key: 'id:tx_1', replacedBy: 'id:tx_9', reason: 'id-changed' }),
      ]),
    );
  });

  it('an old id that comes back while its successor vanished takes its place again', () => {
    const old = posted('tx_1');
    const now = posted('tx_9');
    const superseded = [behind(old, now.key, 'id-changed')];
    const result = diff({ incoming: [old], storedInWindow: [now], superseded });
    expect(summary(result.changes)).toEqual([
      'added id:tx_1 replaces id:tx_9 (reverted)',
      'removed id:tx_9 replacedBy id:tx_1 (reverted)',
    ]);
  });
});

describe('two identical purchases at a bank whose ids switch, and switch back', () => {
  it('keeps both: the row standing for an id listed again reverts to it, and the other pairs with its new id', () => {
    // Fetched before: p1-a and p2-a; then p1-b and p2-a (p1's id switched). Now p1-a and p2-b.
    const [p1b, p2a] = [posted('p1-b'), posted('p2-a')];
    const superseded = [behind(posted('p1-a'), p1b.key, 'id-changed')];
    const result = diff({
      incoming: [posted('p1-a'), posted('p2-b')],
      storedInWindow: [p1b, p2a],
      superseded,
    });
    expect(summary(result.changes).sort()).toEqual(
      [
        'added id:p1-a replaces id:p1-b (reverted)',
        'removed id:p1-b replacedBy id:p1-a (reverted)',
        'added id:p2-b replaces id:p2-a (id-changed)',
        'removed id:p2-a replacedBy id:p2-b (id-changed)',
      ].sort(),
    );
  });
});

describe('rows without an id keep their keys', () => {
  it('whatever order alike rows arrive in, and whichever of them went', () => {
    const a = hold('h:aa:0');
    const b = hold('h:aa:1');
    // The provider now lists one of the two: the mirror keeps the lower key, removes the other.
    const result = diff({ incoming: [hold('h:aa:0')], storedInWindow: [a, b] });
    expect(summary(result.changes)).toEqual(['removed h:aa:1']);
    // A third alike row is new, under a key no stored or superseded row uses.
    const superseded = [behind(b, 'id:x')];
    const more = diff({
      incoming: [hold('h:aa:0'), hold('h:aa:1'), hold('h:aa:2')],
      storedInWindow: [a],
      superseded,
    });
    expect(summary(more.changes)).toEqual(['added h:aa:2']);
    expect(more.hidden).toBe(1);
  });
});
