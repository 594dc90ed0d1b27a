/**
 * A `startDate` still to come (set ahead by mistake, or the caller's "today" in a zone ahead of the
 * machine's clock): there is no day to read yet, which is not an error. Each run succeeds and
 * mirrors nothing; from that day on, the rows from it are mirrored.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, useMsw } from './harness.js';

useMsw();

describe('a startDate after today', () => {
  it('reads nothing and fails nothing until the day comes, then mirrors from it', async () => {
    const h = await createHarness({ engine: { startDate: '2026-07-02' } });
    expect(h.sandbox.today).toBe('2026-06-30');
    const early = await h.engine.sync('c1');
    expect(early.issues).toEqual([]);
    expect(early.outcome).toBe('success');
    expect(early.accounts.length).toBeGreaterThan(1);
    for (const account of early.accounts) expect(account.issues).toEqual([]);
    expect(await h.storage.countTransactions('c1')).toBe(0);
    h.sandbox.advanceDays(3);
    const due = await h.engine.sync('c1');
    expect(due.outcome).toBe('success');
    const rows = await h.storage.findTransactions('c1', '4711');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.date >= '2026-07-02')).toBe(true);
  });

  it('takes no balance anchor before the day comes: the checks after it add up as for a first sync on that day', async () => {
    const verdicts = async (early: boolean) => {
      const h = await createHarness({
        sandbox: { today: '2026-01-10' },
        engine: { startDate: '2026-01-13' },
      });
      if (!early) h.sandbox.advanceDays(3);
      else for (let day = 0; day < 3; day += 1, h.sandbox.advanceDays(1)) await h.engine.sync('c1');
      for (let day = 0; day < 10; day += 1, h.sandbox.advanceDays(1)) await h.engine.sync('c1');
      return (await h.storage.listAccounts('c1')).map((a) => [a.id, a.reconciliation?.status]);
    };
    const early = await verdicts(true);
    expect(early.some(([, status]) => status === 'balanced')).toBe(true);
    expect(early).toEqual(await verdicts(false));
  });
});
