import { describe, expect, it } from 'vitest';
import { DEFAULT_TUNING, MemoryStorage, SyncEngine } from '../src/index.js';

const make = (options: Record<string, unknown>) =>
  new SyncEngine({ storage: new MemoryStorage(), ...options } as ConstructorParameters<typeof SyncEngine>[0]);

describe('SyncEngine options', () => {
  it('refuses tuning that would loop, skip rows or fail every run, when the engine is made', () => {
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      // 0 looped until out of memory; "30" (from an environment variable) mirrored a third of the rows.
      [{ windowDays: 0 }, /windowDays must be a whole number from 1 to 3660, got 0/],
      [{ windowDays: '30' }, /windowDays must be a whole number from 1 to 3660, got "30"/],
      [{ windowDays: 2.5 }, /windowDays/],
      [{ batchSize: 0 }, /batchSize must be a whole number from 1 to 100000, got 0/],
      [{ overlapDays: 'x' }, /overlapDays/],
      [{ pendingOverlapDays: -1 }, /pendingOverlapDays/],
      [{ holdingsRecheckDays: Number.NaN }, /holdingsRecheckDays/],
      [
        { defaultRateLimitPauseMs: 1e12 },
        /defaultRateLimitPauseMs must be a whole number from 0 to 86400000/,
      ],
      [{ includePending: 'yes' }, /includePending must be true or false/],
      [{ startDate: 'garbage' }, /startDate must be a calendar date, YYYY-MM-DD, got "garbage"/],
      [{ startDate: '2026-02-30' }, /startDate/],
    ];
    for (const [options, message] of refused)
      expect(() => make(options), JSON.stringify(options)).toThrow(message);
    // What the tests and examples use is taken, and undefined means the default.
    expect(() =>
      make({ startDate: '2026-01-01', windowDays: 1, batchSize: 1, overlapDays: 0 }),
    ).not.toThrow();
    expect(() => make({ windowDays: undefined })).not.toThrow();
  });

  it('keeps its defaults out of reach of a stray write', () => {
    expect(Object.isFrozen(DEFAULT_TUNING)).toBe(true);
    expect(() => {
      (DEFAULT_TUNING as { windowDays: number }).windowDays = 1;
    }).toThrow(TypeError);
    expect(DEFAULT_TUNING.windowDays).toBe(90);
  });

  it('refuses an unknown event, a listener that is not a function and a signal that is not an AbortSignal', async () => {
    const engine = make({});
    expect(() => engine.on('bogus' as 'progress', () => undefined)).toThrow(
      /no event "bogus": one of run:start/,
    );
    expect(() => engine.on('progress', 'nope' as never)).toThrow(/listener of progress must be a function/);
    await expect(engine.sync('c1', { signal: 'nope' as never })).rejects.toThrow(
      'signal must be an AbortSignal',
    );
  });

  it('refuses a feed read that would end at once or read from nowhere', async () => {
    const engine = make({});
    // A batch size of 0 yielded nothing, as if the feed were empty.
    await expect(engine.changes({ batchSize: 0 }).next()).rejects.toThrow(
      /batchSize must be a number of 1 or more/,
    );
    await expect(engine.readChanges({ after: Number.NaN, limit: 10 })).rejects.toThrow(
      /after must be a feed seq/,
    );
    await expect(engine.readChanges({ limit: -1 })).rejects.toThrow(
      /limit must be a number of 0 or more, got -1/,
    );
    await expect(engine.readChanges({ limit: '3' as never })).rejects.toThrow(
      /limit must be a number of 0 or more, got "3"/,
    );
    await expect(engine.readChanges(undefined as never)).rejects.toThrow(TypeError);
    expect(await engine.readChanges({ limit: 0 })).toEqual([]);
  });
});
