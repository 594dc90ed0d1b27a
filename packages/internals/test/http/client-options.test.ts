import { describe, expect, it } from 'vitest';
import {
  checkedFetch,
  checkedLogger,
  checkedMaxRetries,
  checkedMs,
  checkedSignal,
} from '../../src/http/index.js';

describe('the option checks both clients share', () => {
  it('take an AbortSignal by its shape, as fetch does, and refuse anything else', () => {
    const real = new AbortController().signal;
    expect(checkedSignal(real)).toBe(real);
    expect(checkedSignal(undefined)).toBeUndefined();
    // A polyfill's or another realm's signal is not `instanceof` this realm's AbortSignal.
    const foreign = { aborted: false, addEventListener() {}, removeEventListener() {} };
    expect(checkedSignal(foreign)).toBe(foreign);
    expect(() => checkedSignal('nope')).toThrow('signal must be an AbortSignal, got "nope"');
  });

  it('never repeat the key in a message, even when it was given as the wrong option', () => {
    const key = 'sk-test-SECRET123';
    expect(() => checkedFetch(key, key)).toThrow(TypeError);
    expect(() => checkedFetch(key, key)).not.toThrow(/SECRET123/);
    expect(() => checkedLogger({ info: key }, key)).toThrow(
      /logger.info must be a function, got "\[REDACTED\]"/,
    );
    expect(() => checkedMaxRetries(11, key)).toThrow(
      'maxRetries must be a whole number from 0 to 10, got 11',
    );
    // A key of 64 characters: a message quotes 40, which would be most of it.
    const long = `sk-${'0123456789abcdef'.repeat(4)}`;
    expect(() => checkedMaxRetries(long, long)).toThrow(
      'maxRetries must be a whole number from 0 to 10, got "[REDACTED]"',
    );
    expect(() => checkedMs('timeoutMs', long, 'positive', long)).toThrow(/got "\[REDACTED\]"$/);
  });
});
