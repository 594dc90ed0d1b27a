import { AccountIdTooLongError, type ConnectionReport, type SyncEngine } from '@finsync/sync';
import { describe, expect, it } from 'vitest';
import { SyncRuns, staleBalancesOf, summarize } from '../src/runs.js';
import type { AppStore } from '../src/store/types.js';

/** A store whose saving of the last result waits until the test lets it go. */
function slowStore() {
  let stored: string | null = null;
  let release: () => void = () => undefined;
  const saved = new Promise<void>((resolve) => (release = resolve));
  const store = {
    saveLastSync: async (_userId: string, summary: string) => {
      await saved;
      stored = summary;
    },
    lastSync: async () => stored,
  } as unknown as AppStore;
  return { store, release };
}

const engine = { on: () => () => undefined } as unknown as SyncEngine;
const report = {
  ok: true,
  outcome: 'success',
  status: 'active',
  startedAt: '2026-11-24T00:00:00.000Z',
  finishedAt: '2026-11-24T00:00:01.000Z',
  accounts: [],
  issues: [],
  skippedAccounts: [],
} as unknown as ConnectionReport;

describe('SyncRuns', () => {
  it('shows a run as running until its result is stored, never neither', async () => {
    const { store, release } = slowStore();
    const runs = new SyncRuns(store, engine, {});
    const run = runs.begin('u1');
    const finished = runs.finish('u1', report, 0);
    // The engine run is over, its result not yet stored: the run is still what status shows.
    expect(runs.running('u1')).toBe(run);
    expect(await runs.last('u1')).toBeNull();
    release();
    expect((await finished).summary.run_id).toBe(run.run_id);
    expect(runs.running('u1')).toBeUndefined();
    expect(await runs.last('u1')).toMatchObject({ run_id: run.run_id, ok: true });
  });

  it('a run that starts while the last one is being stored gets its own id and stays running', async () => {
    const { store, release } = slowStore();
    const runs = new SyncRuns(store, engine, {});
    const first = runs.begin('u1');
    const finished = runs.finish('u1', report, 0);
    const second = runs.begin('u1');
    expect(second.run_id).not.toBe(first.run_id);
    release();
    await finished;
    expect(runs.running('u1')).toBe(second);
  });
});

describe('balances no sync has read since one failed to (stale_balances)', () => {
  const account = (accountId: string, balance: string, state = 'active') =>
    ({ accountId, name: accountId, state, balance, replacements: {}, reconciliation: null }) as unknown;
  const report = (accounts: unknown[], issues: Array<{ stage: string; accountId: string | null }> = []) =>
    ({
      ok: issues.length === 0,
      outcome: 'partial',
      status: 'active',
      startedAt: '2026-06-01T00:00:00Z',
      finishedAt: '2026-06-01T00:00:01Z',
      accounts,
      issues: issues.map((i) => ({ ...i, message: 'x', error: new Error('x') })),
      skippedAccounts: [],
    }) as unknown as ConnectionReport;

  it('are kept until a run reads them, and stored with each result', () => {
    const failed = summarize(
      'r1',
      report([account('a', 'failed'), account('b', 'updated')], [{ stage: 'balance', accountId: 'a' }]),
      0,
    );
    expect(failed.stale_balances).toEqual(['a']);
    // A run that did not reach the accounts says nothing of them.
    const unreached = summarize(
      'r2',
      report([], [{ stage: 'accounts', accountId: null }]),
      0,
      staleBalancesOf(failed),
    );
    expect(unreached.stale_balances).toEqual(['a']);
    // Read, but its closing write failed: still the old balance.
    const unstored = summarize(
      'r3',
      report([account('a', 'updated')], [{ stage: 'storage', accountId: 'a' }]),
      0,
      ['a'],
    );
    expect(unstored.stale_balances).toEqual(['a']);
    expect(summarize('r4', report([account('a', 'unchanged')]), 0, ['a']).stale_balances).toEqual([]);
    // An account no longer read keeps its last balance as what it is: no longer flagged.
    expect(summarize('r5', report([account('a', 'skipped', 'gone')]), 0, ['a']).stale_balances).toEqual([]);
    // Gone because its balance answered 404: that failed read flags nothing, as the account is not read again.
    const goneOnBalance = summarize(
      'r6',
      report([account('a', 'failed', 'gone')], [{ stage: 'balance', accountId: 'a' }]),
      0,
    );
    expect(goneOnBalance.stale_balances).toEqual([]);
  });

  it('are read from the issues of a result stored before the list existed', () => {
    const old = summarize('r1', report([account('a', 'failed')], [{ stage: 'balance', accountId: 'a' }]), 0);
    delete old.stale_balances;
    expect(staleBalancesOf(old)).toEqual(['a']);
    expect(staleBalancesOf(null)).toEqual([]);
  });
});

it('a result names the accounts the run left alone, which do not fail it', () => {
  const skipped = new AccountIdTooLongError(`acc_${'7'.repeat(300)}`, 256);
  const summary = summarize(
    'r1',
    { ...report, skippedAccounts: [{ message: skipped.message, error: skipped }] },
    0,
  );
  expect([summary.ok, summary.issues]).toEqual([true, []]);
  expect(summary.skipped_accounts).toEqual([{ error: 'AccountIdTooLongError', message: skipped.message }]);
});
