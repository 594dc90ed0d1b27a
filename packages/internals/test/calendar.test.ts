import { describe, expect, it } from 'vitest';
import { toCalendarDate } from '../src/calendar.js';

describe('toCalendarDate', () => {
  it('reads plain dates, timestamps and unix seconds', () => {
    expect(toCalendarDate('2026-03-14')).toBe('2026-03-14');
    expect(toCalendarDate('2026-03-14T23:30:00.000Z')).toBe('2026-03-14');
    expect(toCalendarDate(1773446400)).toBe('2026-03-14');
    expect(toCalendarDate('1773446400')).toBe('2026-03-14');
  });

  it('reads a timestamp in the configured time zone', () => {
    // 22:30 UTC on 14 June is 23:30 in London (BST) and already 15 June in Tokyo.
    expect(toCalendarDate('2026-06-14T22:30:00Z', 'Europe/London')).toBe('2026-06-14');
    expect(toCalendarDate('2026-06-14T22:30:00Z', 'Asia/Tokyo')).toBe('2026-06-15');
  });

  it('refuses impossible dates', () => {
    expect(toCalendarDate('2026-02-30')).toBeUndefined();
    expect(toCalendarDate('14/03/2026')).toBeUndefined();
    expect(toCalendarDate(null)).toBeUndefined();
  });
});
