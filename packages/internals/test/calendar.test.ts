import { describe, expect, it } from 'vitest';
import { isValidCalendarDate, toCalendarDate, today } from '../src/calendar.js';

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

  it('reads midnight UTC as the date it names in any zone: a date with no time, written as a timestamp', () => {
    for (const zone of ['America/New_York', 'Pacific/Honolulu', 'Asia/Tokyo', 'Europe/London', 'UTC']) {
      for (const value of [
        '2026-06-30T00:00:00.000Z',
        '2026-06-30T00:00:00Z',
        '2026-06-30T00:00Z',
        '2026-06-30T00:00:00+00:00',
        '2026-06-30 00:00:00+0000',
        Date.UTC(2026, 5, 30) / 1000,
        String(Date.UTC(2026, 5, 30) / 1000),
      ])
        expect(toCalendarDate(value, zone), `${value} in ${zone}`).toBe('2026-06-30');
    }
    // A second past midnight, or midnight on another clock, is an instant, read in the zone.
    expect(toCalendarDate('2026-06-30T00:00:01Z', 'America/New_York')).toBe('2026-06-29');
    expect(toCalendarDate(Date.UTC(2026, 5, 30) / 1000 + 1, 'America/New_York')).toBe('2026-06-29');
    expect(toCalendarDate('2026-06-30T00:00:00+02:00', 'UTC')).toBe('2026-06-29');
  });

  it('refuses numbers that are not unix seconds, as a number or as text alike', () => {
    // Milliseconds read as seconds named the year 56170; a compact date read as seconds, 1970-08-23.
    for (const value of [
      1773446400000,
      '1773446400000',
      20260314,
      '20260314',
      0,
      -86_400,
      '000000001',
      1e11,
      NaN,
    ])
      expect(toCalendarDate(value), String(value)).toBeUndefined();
    expect(toCalendarDate(100_000_000)).toBe('1973-03-03');
    expect(toCalendarDate(99_999_999_999)).toBe('5138-11-16');
    expect(toCalendarDate(1773446400.5)).toBe('2026-03-14');
  });

  it('refuses impossible dates', () => {
    expect(toCalendarDate('2026-02-30')).toBeUndefined();
    expect(toCalendarDate('14/03/2026')).toBeUndefined();
    expect(toCalendarDate(null)).toBeUndefined();
  });
});

describe('isValidCalendarDate', () => {
  it('takes the years 0 to 99 as written, not as 1900 to 1999', () => {
    expect(isValidCalendarDate('0001-01-01')).toBe(true);
    expect(isValidCalendarDate('0099-12-31')).toBe(true);
    // The year 0 is a leap year in the proleptic Gregorian calendar, 100 is not.
    expect(isValidCalendarDate('0000-02-29')).toBe(true);
    expect(isValidCalendarDate('0100-02-29')).toBe(false);
    expect(isValidCalendarDate('0001-02-29')).toBe(false);
  });
});

describe('today', () => {
  it("without a zone, is the date in the machine's zone, as Intl names it", () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const inZone = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2025, 0, 1); ms += 7 * 3_600_000 + 123_457) {
      const instant = new Date(ms);
      expect(today(undefined, instant)).toBe(inZone.format(instant));
    }
  });

  it('with a zone, is the date there', () => {
    const instant = new Date('2026-03-01T23:30:00Z');
    expect(today('UTC', instant)).toBe('2026-03-01');
    expect(today('Asia/Tokyo', instant)).toBe('2026-03-02');
    expect(today('America/New_York', instant)).toBe('2026-03-01');
  });
});
