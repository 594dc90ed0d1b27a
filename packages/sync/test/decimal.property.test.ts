import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/internals/money';
import { addDecimals } from '../src/engine/decimal.js';

/** The sum by bigints alone: what `addDecimals` gave before it had a fast path. */
function bigintSum(values: string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.includes('.') ? v.length - v.indexOf('.') - 1 : 0)));
  let total = 0n;
  for (const value of values) total += decimalToMinorUnits(value, scale);
  return minorUnitsToDecimal(total, scale);
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Decimal strings as the engine sums them, and the forms around them the exact path also reads. */
const decimal = fc
  .tuple(fc.constantFrom('', '-', '+'), digits(0, 20), fc.option(digits(0, 12), { nil: undefined }))
  .filter(([, int, frac]) => int.length + (frac?.length ?? 0) > 0)
  .map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? '' : `.${frac}`}`);

describe('addDecimals', () => {
  it('sums exactly as bigints do, small or large', () => {
    fc.assert(
      fc.property(fc.array(decimal, { minLength: 1, maxLength: 30 }), (values) => {
        expect(addDecimals(...values)).toBe(bigintSum(values));
      }),
      { numRuns: 2_000 },
    );
  });

  it('stays exact where a sum of doubles would not', () => {
    // Each fits a double exactly; their sum passes 2^53 and must leave the fast path.
    expect(addDecimals('9007199254740991', '1', '1')).toBe('9007199254740993');
    expect(addDecimals('90071992547409.91', '0.01', '0.01')).toBe('90071992547409.93');
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(addDecimals('-0.10', '0.1')).toBe('0');
    expect(addDecimals('12.5', '-20.25', '7.75')).toBe('0');
  });
});
