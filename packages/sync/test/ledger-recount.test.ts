/** The balance check's recount of the stored rows, on its own: when it runs, and what it keeps. */
import { describe, expect, it } from 'vitest';
import { checkBalance, checkBalanceRecounting, emptyLedger, type StoredRows } from '../src/engine/ledger.js';
import type { AccountLedger, MirrorTransaction } from '../src/model.js';

const row = (key: string, amount: string, date: string): MirrorTransaction => ({
  connectionId: 'c1',
  accountId: 'a',
  key,
  providerId: key,
  amount,
  currency: 'GBP',
  date,
  merchant: null,
  description: null,
  isPending: false,
});

/** The stored rows as the check reaches them (a count, a scan), counting the scans. */
function store(rows: MirrorTransaction[]) {
  const counter = { scans: 0 };
  const access: StoredRows = {
    count: async () => rows.length,
    rows: () => {
      counter.scans += 1;
      return (async function* () {
        yield* rows;
      })();
    },
  };
  return { rows, access, counter };
}

describe('the balance check recounts the stored rows', () => {
  it('keeps a recount that makes the check add up: sums lost by a concurrent run', async () => {
    const stored = store([row('r1', '-100', '2026-01-01')]);
    let ledger: AccountLedger = checkBalance(
      { ...emptyLedger(), postedTotal: '-100', historyFrom: '2026-01-01' },
      '900',
      '0',
      '2026-01-02',
    ).ledger;
    // Another run committed r2 (−10) and the ledger it wrote was overwritten by one without it.
    stored.rows.push(row('r2', '-10', '2026-01-02'));
    const result = await checkBalanceRecounting(ledger, '890', '0', '2026-01-03', stored.access);
    expect(result.recounted).toBe(true);
    expect(result.reconciliation.status).toBe('balanced');
    expect(result.ledger.postedTotal).toBe('-110');
    ledger = result.ledger;
    // Adding up again, nothing more to recount.
    const next = await checkBalanceRecounting(ledger, '890', '0', '2026-01-04', stored.access);
    expect(next.reconciliation.status).not.toBe('mismatch');
    expect(stored.counter.scans).toBe(1);
  });

  it('keeps the kept sums when a recount would not add up either, so a mismatch that passes still passes', async () => {
    // An anchor taken while the kept sums were 100 short of the rows (the first check, unverified).
    const stored = store([row('r1', '-100', '2026-01-01')]);
    let ledger = checkBalance(emptyLedger(), '900', '0', '2026-01-02').ledger;
    stored.rows.push(row('r2', '-10', '2026-01-02'));
    ledger = checkBalance(
      { ...ledger, postedTotal: '-10', changedFrom: '2026-01-02' },
      '890',
      '0',
      '2026-01-03',
    ).ledger;
    // The bank's balance lags a row by a day: a real mismatch of 5, for one day.
    stored.rows.push(row('r3', '-5', '2026-01-03'));
    const lagging = await checkBalanceRecounting(
      { ...ledger, postedTotal: '-15', changedFrom: '2026-01-03' },
      '890',
      '0',
      '2026-01-04',
      stored.access,
    );
    expect(lagging.reconciliation).toMatchObject({ status: 'mismatch', difference: '5' });
    expect(lagging.recounted).toBe(false);
    expect(lagging.ledger.postedTotal).toBe('-15');
    // The bank catches up: it adds up again, as it would have without any recount.
    const caughtUp = await checkBalanceRecounting(lagging.ledger, '885', '0', '2026-01-05', stored.access);
    expect(caughtUp.reconciliation.status).toBe('balanced');
  });

  it('recounts a mismatch that lasts once, not on every run, until the rows move', async () => {
    const stored = store([row('r1', '-100', '2026-01-01')]);
    let ledger = checkBalance(
      { ...emptyLedger(), postedTotal: '-100', historyFrom: '2026-01-01' },
      '900',
      '0',
      '2026-01-02',
    ).ledger;
    // A fee the provider never lists: the balance moves, the rows do not.
    for (const day of ['2026-01-03', '2026-01-04', '2026-01-05']) {
      const result = await checkBalanceRecounting(ledger, '895', '0', day, stored.access);
      expect(result.reconciliation).toMatchObject({ status: 'mismatch', difference: '-5' });
      ledger = result.ledger;
    }
    expect(stored.counter.scans).toBe(1);
    expect(ledger.recountedTotal).toBe('-100');
    // A row moves the sums: the next failing check is recounted again.
    stored.rows.push(row('r2', '-1', '2026-01-06'));
    const moved = await checkBalanceRecounting(
      { ...ledger, postedTotal: '-101', changedFrom: '2026-01-06' },
      '894',
      '0',
      '2026-01-06',
      stored.access,
    );
    expect(moved.reconciliation.status).toBe('mismatch');
    expect(stored.counter.scans).toBe(2);
    // And once it adds up, the mark is gone with the old anchor.
    const fixed = await checkBalanceRecounting(moved.ledger, '899', '0', '2026-01-07', stored.access);
    expect(fixed.reconciliation.status).toBe('balanced');
    expect(fixed.ledger.recountedTotal).toBeUndefined();
  });

  describe('before the first anchor', () => {
    const rows = [
      row('r1', '-100', '2026-01-01'),
      row('r2', '-10', '2026-01-02'),
      row('r3', '-1', '2026-01-03'),
    ];

    it('takes it on the sums kept when they counted as many rows as are stored, without a scan', async () => {
      const stored = store(rows);
      const ledger = { ...emptyLedger(), postedTotal: '-111', historyFrom: '2026-01-01', rows: 3 };
      const first = await checkBalanceRecounting(ledger, '889', '0', '2026-01-04', stored.access);
      expect(first.reconciliation).toMatchObject({ status: 'unchecked', openingBalance: '1000' });
      expect(first.recounted).toBe(false);
      expect(stored.counter.scans).toBe(0);
    });

    it('recounts sums that counted another number of rows (a run beside it lost them), so the opening balance is right', async () => {
      const stored = store(rows);
      // Another run committed r1; the ledger this run wrote last never counted it.
      const drifted = { ...emptyLedger(), postedTotal: '-11', historyFrom: '2026-01-02', rows: 2 };
      const first = await checkBalanceRecounting(drifted, '889', '0', '2026-01-04', stored.access);
      expect(first.recounted).toBe(true);
      expect(first.reconciliation).toMatchObject({ openingBalance: '1000', historyFrom: '2026-01-01' });
      expect(first.ledger).toMatchObject({ postedTotal: '-111', rows: 3 });
      // Kept on the kept sums, the first anchor would say 900, and every later check would agree.
      expect(checkBalance(drifted, '889', '0', '2026-01-04').reconciliation.openingBalance).toBe('900');
      // No anchor on a run another one ran beside: the next run takes it, on its own balance.
      expect(first.ledger.anchor).toBeNull();
      const next = await checkBalanceRecounting(first.ledger, '889', '0', '2026-01-05', stored.access);
      expect(next.ledger.anchor).toMatchObject({ openingPosted: '1000' });
    });

    it('takes no anchor when a run beside it stored a later reading of the bank than this run’s balance', async () => {
      // The true opening balance is 1000. This run read r1 and r2 and a balance of 890; meanwhile the
      // bank posted r3 (−1) and a run beside it stored r3. Rows and balance are of two readings.
      const stored = store([...rows]);
      const mine = { ...emptyLedger(), postedTotal: '-110', historyFrom: '2026-01-01', rows: 2 };
      const first = await checkBalanceRecounting(mine, '890', '0', '2026-01-03', stored.access);
      expect(first.reconciliation.status).toBe('unchecked');
      expect(first.ledger.anchor).toBeNull();
      // The next run reads the bank as the rows stand (889): anchored right, and later checks add up.
      const second = await checkBalanceRecounting(first.ledger, '889', '0', '2026-01-04', stored.access);
      expect(second.ledger.anchor).toMatchObject({ openingPosted: '1000' });
      stored.rows.push(row('r4', '-5', '2026-01-05'));
      const moved = { ...second.ledger, postedTotal: '-116', rows: 4, changedFrom: '2026-01-05' };
      const third = await checkBalanceRecounting(moved, '884', '0', '2026-01-05', stored.access);
      expect(third.reconciliation.status).toBe('balanced');
    });

    it('counts the rows once for a ledger stored by an earlier version, which has no count', async () => {
      const stored = store(rows);
      const { rows: _none, ...earlier } = {
        ...emptyLedger(),
        postedTotal: '-111',
        historyFrom: '2026-01-01',
      };
      const first = await checkBalanceRecounting(earlier, '889', '0', '2026-01-04', stored.access);
      expect(first.recounted).toBe(false);
      expect(first.reconciliation.openingBalance).toBe('1000');
      expect(first.ledger.rows).toBe(3);
    });
  });
});
