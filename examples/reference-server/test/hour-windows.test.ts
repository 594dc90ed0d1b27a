import { describe, expect, it } from 'vitest';
import { AlignedWindowStore } from '../src/http/middleware/hour-windows.js';

const HOUR = 3_600_000;

describe('the rate limit counters', () => {
  it('count per key in windows aligned to the hour, and reset when the hour turns', () => {
    let now = Date.UTC(2026, 10, 29, 19, 10, 9);
    const store = new AlignedWindowStore(HOUR, { now: () => now });
    expect(store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(Date.UTC(2026, 10, 29, 20)) });
    expect(store.increment('a').totalHits).toBe(2);
    expect(store.increment('b').totalHits).toBe(1);
    now = Date.UTC(2026, 10, 29, 19, 59, 59, 999);
    expect(store.increment('a').totalHits).toBe(3);
    now = Date.UTC(2026, 10, 29, 20, 0, 0);
    expect(store.get('a')).toBeUndefined();
    expect(store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(Date.UTC(2026, 10, 29, 21)) });
  });

  it('keep at most maxKeys counters, dropping past windows first, then the oldest', () => {
    let now = 0;
    const store = new AlignedWindowStore(HOUR, { maxKeys: 3, now: () => now });
    store.increment('old');
    now = HOUR;
    for (const key of ['a', 'b', 'c']) store.increment(key);
    expect(store.get('old')).toBeUndefined();
    store.increment('d');
    // Four in this hour and room for three: the first of the hour goes.
    expect(store.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((key) => store.get(key)?.totalHits)).toEqual([1, 1, 1]);
  });
});
