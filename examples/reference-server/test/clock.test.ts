/** The server's stamped times (access lines, `updated_at`) read as `new Date().toISOString()` would. */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow } from '../src/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('isoNow', () => {
  it('gives the text toISOString gives at any instant a Date can hold, in any order', () => {
    vi.useFakeTimers();
    fc.assert(
      fc.property(
        // Runs of instants close together (the cached second reused) and far apart (made again).
        fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 0, max: 2_500 }), { maxLength: 5 }),
        (starts, steps) => {
          for (const start of starts) {
            let now = start;
            for (const step of [0, ...steps]) {
              now = Math.min(8.64e15, now + step);
              vi.setSystemTime(now);
              expect(isoNow()).toBe(new Date(now).toISOString());
            }
          }
        },
      ),
    );
  });

  it('moves on with the clock, not only once a second', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-12-03T10:00:00.998Z'));
    expect(isoNow()).toBe('2026-12-03T10:00:00.998Z');
    vi.setSystemTime(new Date('2026-12-03T10:00:00.999Z'));
    expect(isoNow()).toBe('2026-12-03T10:00:00.999Z');
    vi.setSystemTime(new Date('2026-12-03T10:00:01.000Z'));
    expect(isoNow()).toBe('2026-12-03T10:00:01.000Z');
    // Back in time (a clock set back): the prefix is made again.
    vi.setSystemTime(new Date('2026-12-03T09:59:59.500Z'));
    expect(isoNow()).toBe('2026-12-03T09:59:59.500Z');
  });
});
