import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConnectionReport, Storage, WriteBatch } from '../src/index.js';
import { createHarness, expectFeedReplaysToMirror, expectMirrorMatchesProvider, useMsw } from './harness.js';

useMsw();

class SimulatedCrash extends Error {}

/**
 * Whether a run met the simulated crash: it rejects with it when the write that failed was the
 * run's own, and reports it as an issue when the failed write was one account's (the run goes on).
 */
async function metCrash(run: Promise<ConnectionReport>): Promise<boolean> {
  try {
    return (await run).issues.some((i) => i.error instanceof SimulatedCrash);
  } catch (error) {
    if (!(error instanceof SimulatedCrash)) throw error;
    return true;
  }
}

/**
 * A storage whose process "dies" just before its n-th commit: that commit and everything after it
 * never happen. Its commits take a millisecond, as a networked store's do, so the engine's
 * reads of the next page may run while a commit is still under way (reads go straight through).
 */
class CrashingStorage implements Storage {
  commits = 0;
  constructor(
    readonly inner: Storage,
    readonly crashAt: number,
  ) {}
  async apply(batch: WriteBatch): Promise<void> {
    this.commits += 1;
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (this.commits >= this.crashAt) throw new SimulatedCrash(`crash before commit ${this.commits}`);
    return this.inner.apply(batch);
  }
  init = () => this.inner.init();
  close = () => this.inner.close();
  getConnection = (id: string) => this.inner.getConnection(id);
  listConnections = () => this.inner.listConnections();
  removeConnection = (id: string) => this.inner.removeConnection(id);
  listAccounts = (id: string) => this.inner.listAccounts(id);
  listAccountStates = (id: string) => this.inner.listAccountStates(id);
  findTransactions: Storage['findTransactions'] = (...args) => this.inner.findTransactions(...args);
  scanTransactions: Storage['scanTransactions'] = (...args) => this.inner.scanTransactions(...args);
  countTransactions: Storage['countTransactions'] = (...args) => this.inner.countTransactions(...args);
  listHoldings: Storage['listHoldings'] = (...args) => this.inner.listHoldings(...args);
  listSuperseded: Storage['listSuperseded'] = (...args) => this.inner.listSuperseded(...args);
  readChanges: Storage['readChanges'] = (...args) => this.inner.readChanges(...args);
  lastSeq = () => this.inner.lastSeq();
}

/**
 * How a first sync reads the history: walked in windows from a start date, or asked whole with the
 * answer held in memory, or asked whole with the answer spilled to disk and read back in pages.
 */
const FIRST_SYNCS = {
  // The history reaches back past startDate, so a resumed run's overlap re-read could too.
  windowed: {
    sandbox: { historyDays: 70 },
    engine: { startDate: '2026-05-01', windowDays: 20, batchSize: 25 },
  },
  'whole, spilled': {
    engine: { batchSize: 25 },
    client: { spill: { afterRows: 10, pageRows: 15 } },
  },
} as const;

function startDateOf(options: (typeof FIRST_SYNCS)[keyof typeof FIRST_SYNCS]): string | undefined {
  return 'startDate' in options.engine ? options.engine.startDate : undefined;
}

describe('a run cut off at any commit loses nothing and duplicates nothing', () => {
  it.each(Object.keys(FIRST_SYNCS) as Array<keyof typeof FIRST_SYNCS>)(
    'for every commit boundary of a first sync (%s) and of an incremental sync',
    async (firstSync) => {
      const options = FIRST_SYNCS[firstSync];
      // Count the commits of a clean first sync and of a clean next-day sync.
      const probe = await createHarness(options);
      const counting = new CrashingStorage(probe.storage, Number.POSITIVE_INFINITY);
      const probeEngine = await probe.restart(counting);
      await probeEngine.sync('c1');
      const firstCommits = counting.commits;
      probe.sandbox.advanceDays(3);
      await probeEngine.sync('c1');
      const secondCommits = counting.commits - firstCommits;
      expect(firstCommits).toBeGreaterThan(10);

      for (let crashAt = 2; crashAt <= firstCommits + secondCommits; crashAt += 1) {
        const h = await createHarness(options);
        const inner = h.storage;
        const crashing = new CrashingStorage(inner, crashAt);
        const doomed = await h.restart(crashing);
        let crashed = await metCrash(doomed.sync('c1'));
        if (!crashed) {
          h.sandbox.advanceDays(3);
          crashed = await metCrash(doomed.sync('c1'));
        }
        expect(crashed, `crash at commit ${crashAt}`).toBe(true);
        // A new process over what was committed.
        const survivor = await h.restart(inner);
        const report = await survivor.sync('c1');
        expect(
          report.ok,
          `recovery after crash at ${crashAt}: ${report.issues.map((i) => i.message).join('; ')}`,
        ).toBe(true);
        if (h.sandbox.today === '2026-06-30') {
          h.sandbox.advanceDays(3);
          await survivor.sync('c1');
        }
        // Exactly what an uncut sync mirrors: the provider's rows from startDate on.
        await expectMirrorMatchesProvider({ ...h, storage: inner }, { from: startDateOf(options) });
        await expectFeedReplaysToMirror(inner);
      }
    },
    // A first sync, a crash and a recovery per commit boundary (some 60): ~11 s on a fast machine, 20 on
    // a slow one. Past two minutes something hangs.
    120_000,
  );
});

describe('a run cut off between the commits of one window', () => {
  // Account 8001's bank re-issues every posted id each day, and a hold there lingers beside its
  // posted twin, hidden behind it. Small commits cut the next day's window into several, so a crash
  // can fall between a re-issued row stored under its new id and its old id removed. Found by the
  // property below (seed 5, a crash at the 14th commit of the second day's run).
  it('leaves nothing a later run reads as a different history, at every commit boundary', async () => {
    const options = {
      sandbox: { seed: 5, historyDays: 25, transactionsPerDay: 3 },
      engine: { batchSize: 7 },
      client: { spill: false as const },
    };
    const probe = await createHarness(options);
    await probe.engine.sync('c1');
    probe.sandbox.advanceDays(1);
    const counting = new CrashingStorage(probe.storage, Number.POSITIVE_INFINITY);
    await (await probe.restart(counting)).sync('c1');
    const dayCommits = counting.commits;
    expect(dayCommits).toBeGreaterThan(10);

    for (let crashAt = 1; crashAt <= dayCommits; crashAt += 1) {
      const h = await createHarness(options);
      const inner = h.storage;
      await h.engine.sync('c1');
      h.sandbox.advanceDays(1);
      const doomed = await h.restart(new CrashingStorage(inner, crashAt));
      expect(await metCrash(doomed.sync('c1')), `crash at commit ${crashAt}`).toBe(true);
      const report = await (await h.restart(inner)).sync('c1');
      expect(report.ok, `recovery after a crash at commit ${crashAt}`).toBe(true);
      await expectMirrorMatchesProvider({ ...h, storage: inner }, { from: undefined });
      await expectFeedReplaysToMirror(inner);
    }
  }, 120_000);
});

describe('idempotence property', () => {
  type Step =
    | { kind: 'advance'; days: number }
    | { kind: 'sync'; crashAt: number | null }
    | { kind: 'fault'; accountId: string; status: number };

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 4 }) }),
    fc.record({
      kind: fc.constant('sync' as const),
      crashAt: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    }),
    fc.record({
      kind: fc.constant('fault' as const),
      accountId: fc.constantFrom('4711', '4712', '4713', '5001', '8001'),
      status: fc.constantFrom(500, 503, 404),
    }),
  );

  // The default sandbox has holds that linger beside their posted twins and an account (8001) whose
  // bank re-issues every posted id each day, so these sequences exercise both rules too; half of them
  // also list some holds at another amount than they post at, and half some holds at a first-day estimate.
  it('any sequence of provider states and syncs, interrupted or not, ends with the provider state mirrored (from startDate on) and a feed that replays to it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 1_000 }),
        // Whole-history answers held in memory, or spilled to disk and read back in small pages.
        fc.constantFrom(false as const, { afterRows: 8, pageRows: 12 }),
        // The whole history, or from a day inside it, walked in windows.
        fc.constantFrom(undefined, '2026-06-15'),
        // Some holds listed at the amount before a tip, so a vanished hold links across amounts.
        fc.boolean(),
        // Some holds listed at an estimate on their first day, so a hold is listed again under a new key.
        fc.boolean(),
        async (steps, seed, spill, startDate, holdsSettleElsewise, holdsRelisted) => {
          const h = await createHarness({
            sandbox: { seed, historyDays: 25, transactionsPerDay: 3, holdsSettleElsewise, holdsRelisted },
            engine: { batchSize: 7, ...(startDate ? { startDate, windowDays: 4 } : {}) },
            client: { spill },
          });
          const mirrored = { from: startDate };
          const inner = h.storage;
          for (const s of steps) {
            if (s.kind === 'advance') h.sandbox.advanceDays(s.days);
            else if (s.kind === 'fault')
              h.sandbox.faults.add({
                kind: 'status',
                status: s.status,
                times: 1,
                match: { accountId: s.accountId },
              });
            else {
              const engine = await h.restart(
                new CrashingStorage(inner, s.crashAt ?? Number.POSITIVE_INFINITY),
              );
              const report = await engine.sync('c1').catch((error: unknown) => {
                if (!(error instanceof SimulatedCrash)) throw error;
                return null;
              });
              // Every clean run leaves each purchase exactly once, not only the last one.
              if (report?.ok) await expectMirrorMatchesProvider(h, mirrored);
            }
          }
          h.sandbox.faults.clear();
          const engine = await h.restart(new CrashingStorage(inner, Number.POSITIVE_INFINITY));
          await engine.sync('c1');
          // A 404 may have marked an account gone: the provider still lists it, so the next run revives it.
          const report = await engine.sync('c1');
          expect(report.ok).toBe(true);
          await expectMirrorMatchesProvider(h, mirrored);
          await expectFeedReplaysToMirror(inner);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
