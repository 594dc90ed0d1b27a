import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  delayBeforeRetry,
  parseRetryAfterHeader,
  parseWaitFromText,
} from '../../src/http/retry-timing.js';

describe('retry timing', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfterHeader('3')).toBe(3000);
    expect(parseRetryAfterHeader('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(
      10_000,
    );
    expect(parseRetryAfterHeader(null)).toBeUndefined();
    expect(parseRetryAfterHeader('soon')).toBeUndefined();
    // Not a date, though Date.parse reads each: "-1" was "now", and the client retried at once.
    for (const value of ['-1', '-5', '+3', '12 apples'])
      expect(parseRetryAfterHeader(value), value).toBeUndefined();
    const at = Date.UTC(1994, 10, 6, 8, 49, 30);
    expect(parseRetryAfterHeader('Sunday, 06-Nov-94 08:49:37 GMT', at)).toBe(7_000);
  });

  it('reads "try again in N" in either API’s wording', () => {
    expect(parseWaitFromText('Please try again in 37 seconds')).toBe(37_000);
    expect(parseWaitFromText('Rate limit exceeded. Try again in 1834 seconds.')).toBe(1_834_000);
    expect(parseWaitFromText('try again in 250 ms')).toBe(250);
    expect(parseWaitFromText('try again in 2 minutes')).toBe(120_000);
    expect(parseWaitFromText('no hint')).toBeUndefined();
  });

  it('backs off 0.5 s, 1 s, 2 s … up to 8 s, scaled by 0.75–1', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffDelay(n, () => 1))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoffDelay(1, () => 0)).toBe(375);
  });

  it('waits what the server asked, gives up when that is too long, else backs off', () => {
    expect(delayBeforeRetry(2000, 1, 5000)).toBe(2000);
    expect(delayBeforeRetry(60_000, 1, 5000)).toBeUndefined();
    const own = delayBeforeRetry(undefined, 2, 5000);
    expect(own).toBeGreaterThanOrEqual(750);
    expect(own).toBeLessThanOrEqual(1000);
  });
});
