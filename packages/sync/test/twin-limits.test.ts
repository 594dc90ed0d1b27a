/**
 * What no rule can know (SPEC.md, "Replacement rules"), end to end on the sandbox: a purchase
 * still pending and a later purchase at the same price and payee that posted at once look exactly
 * like a hold lingering beside its posted twin. Found by the idempotence property (seed 345).
 */
import { expect, it } from 'vitest';
import { createHarness, expectMirrorMatchesProvider, useMsw } from './harness.js';

useMsw();

it('a pending purchase taken for a later same-price posting is hidden only until its own posting arrives', async () => {
  const h = await createHarness({
    sandbox: { seed: 345, historyDays: 25, transactionsPerDay: 3 },
    client: { spill: false },
  });
  h.sandbox.advanceDays(2);
  const coffee = () =>
    [...h.sandbox.transactionsOf('8001', { includePending: true })]
      .filter((t) => t.merchant === 'Kaffeehaus Mitte' && t.amount === '-23.62')
      .map((t) => `${t.date} ${t.isPending ? 'pending' : 'posted'}${t.lingering ? ' lingering' : ''}`);
  // On 2 July the bank lists a card purchase of 1 July, not yet posted, and a contactless one of
  // 2 July that posted at once: to any importer, a hold lingering beside its posted twin.
  expect(h.sandbox.today).toBe('2026-07-02');
  expect(coffee()).toEqual(['2026-07-02 posted', '2026-07-01 pending']);

  expect((await h.engine.sync('c1')).ok).toBe(true);
  const excused = await expectMirrorMatchesProvider(h);
  expect(excused.map((t) => `${t.accountId} ${t.date} ${t.amount} ${t.merchant}`)).toEqual([
    '8001 2026-07-01 -23.62 Kaffeehaus Mitte',
  ]);

  // 4 July: the 1 July purchase posts (its hold still listed beside it). Both postings are shown,
  // each purchase once, with nothing excused.
  h.sandbox.advanceDays(2);
  expect(coffee()).toEqual(['2026-07-04 posted', '2026-07-02 posted', '2026-07-01 pending lingering']);
  expect((await h.engine.sync('c1')).ok).toBe(true);
  expect(await expectMirrorMatchesProvider(h)).toEqual([]);
  const shown = (await h.storage.findTransactions('c1', '8001')).filter(
    (t) => t.merchant === 'Kaffeehaus Mitte' && t.amount === '-23.62',
  );
  expect(shown.map((t) => `${t.date} ${t.isPending ? 'pending' : 'posted'}`).sort()).toEqual([
    '2026-07-02 posted',
    '2026-07-04 posted',
  ]);
});
