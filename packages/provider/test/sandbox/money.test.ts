import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyDecimals,
  formatMinor,
  formatScaled,
  minorToNumber,
  parseMinor,
} from '../../src/sandbox/money.js';
import { Rng, permutedId } from '../../src/sandbox/random.js';

describe('money', () => {
  it('formats and parses minor units exactly', () => {
    expect(formatMinor(-2340, 2)).toBe('-23.40');
    expect(formatMinor(5, 2)).toBe('0.05');
    expect(formatMinor(-5, 3)).toBe('-0.005');
    expect(formatMinor(1500, 0)).toBe('1500');
    expect(formatScaled(12500, 3)).toBe('12.5');
    expect(formatScaled(1500000, 3)).toBe('1500');
    expect(currencyDecimals('jpy')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    expect(currencyDecimals('GBP')).toBe(2);
    expect(() => parseMinor('1.234', 2)).toThrow(RangeError);
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        fc.constantFrom(0, 2, 3),
        (minor, decimals) => {
          const text = formatMinor(minor, decimals);
          expect(parseMinor(text, decimals)).toBe(minor);
          // The JSON number is the same decimal without trailing zeros.
          const json = JSON.stringify(minorToNumber(minor, decimals));
          expect(parseMinor(json, decimals)).toBe(minor);
        },
      ),
    );
  });
});

describe('random', () => {
  it('is reproducible and spreads values', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const xs = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });

  it('gives collision-free ids for distinct (ordinal, day, index)', () => {
    const seen = new Set<string>();
    for (let ordinal = 0; ordinal < 4; ordinal++) {
      for (let day = 20000; day < 20500; day++) {
        for (let index = 0; index < 30; index++) seen.add(permutedId(7, ordinal, day, index));
      }
    }
    expect(seen.size).toBe(4 * 500 * 30);
    expect(permutedId(7, 0, 20000, 0)).not.toBe(permutedId(8, 0, 20000, 0));
    expect(permutedId(7, 0, 20000, 0)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('minorToNumber', () => {
  it('is the number the decimal string parses to, for every scale a currency has', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.maxSafeInteger()),
        fc.integer({ min: 0, max: 6 }),
        (minor, decimals) => {
          expect(Object.is(minorToNumber(minor, decimals), Number(formatMinor(minor, decimals)))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
    expect(Object.is(minorToNumber(-0, 2), 0)).toBe(true);
    expect(() => minorToNumber(0.5, 2)).toThrow(RangeError);
  });
});
