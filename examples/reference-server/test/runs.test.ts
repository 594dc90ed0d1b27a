import type { ConnectionReport, SyncEngine } from '@finsync/sync';
import { describe, expect, it } from 'vitest';
import { SyncRuns } from '../src/runs.js';
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
    expect((await finished).run_id).toBe(run.run_id);
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
