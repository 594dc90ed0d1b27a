import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decimalToMinorUnits,
  decimalToSafeMinorUnits,
  minorUnitsToDecimal,
  negateDecimal,
  toDecimalString,
} from '../src/money.js';

describe('toDecimalString', () => {
  it.each([
    [-23.4, '-23.4'],
    ['-23.40', '-23.4'],
    ['+5', '5'],
    ['.5', '0.5'],
    ['-0.00', '0'],
    [0, '0'],
    [999_999_999_999_999, '999999999999999'],
    ['0.000000000000000001', '0.000000000000000001'],
    [1e-7, '0.0000001'],
    ['1.5E3', '1500'],
    [' 12.0 ', '12'],
    [1234567.89, '1234567.89'],
    [0.1 + 0.2 === 0.3 ? 0.3 : 0.30000000000000004, '0.30000000000000004'],
  ])('%j → %s', (input, expected) => {
    expect(toDecimalString(input)).toBe(expected);
  });

  it.each([['1,234.56'], ['abc'], [''], [NaN], [Infinity], [null], [{}], ['1.2.3']])(
    'refuses %j',
    (input) => {
      expect(toDecimalString(input)).toBeUndefined();
    },
  );

  // 15 integer digits and 18 decimals at most: past them a value is corrupt, not money.
  it.each([[1e15], [-1e21], ['1234567890123456'], ['-1e25'], [1e-19], ['0.0000000000000000001']])(
    'refuses %j, past the bounds',
    (input) => {
      expect(toDecimalString(input)).toBeUndefined();
    },
  );

  it('converts to and from minor units without floats', () => {
    expect(decimalToMinorUnits('-412.07', 2)).toBe(-41207n);
    expect(decimalToMinorUnits('1.005', 2)).toBe(101n);
    expect(decimalToMinorUnits('1235', 0)).toBe(1235n);
    expect(minorUnitsToDecimal(-41207n, 2)).toBe('-412.07');
    expect(minorUnitsToDecimal(5n, 3)).toBe('0.005');
    expect(negateDecimal('-6.15')).toBe('6.15');
    expect(negateDecimal('0')).toBe('0');
  });

  it('refuses what is not a decimal, whole units or a scale of 0–18, instead of returning nonsense', () => {
    // Each of these used to answer: '1..5', '-abc', '-+5', 0n, or a bare "Invalid string length".
    expect(() => minorUnitsToDecimal(1.5 as unknown as bigint, 2)).toThrow(
      'minor units must be a bigint or a safe integer, got 1.5',
    );
    expect(() => negateDecimal('abc')).toThrow('not a decimal string: "abc"');
    expect(() => negateDecimal('+5')).toThrow(RangeError);
    expect(() => decimalToMinorUnits('', 2)).toThrow('not a decimal string: ""');
    expect(() => decimalToMinorUnits('1.5', 1e9)).toThrow(
      'scale must be a whole number from 0 to 18, got 1000000000',
    );
    expect(() => minorUnitsToDecimal(1n, -1)).toThrow(RangeError);
    // A safe integer number is whole units; a canonical zero stays unsigned.
    expect(minorUnitsToDecimal(150 as unknown as bigint, 2)).toBe('1.5');
    expect(negateDecimal('-0')).toBe('0');
  });
});

describe('toDecimalString of a JSON number', () => {
  it('reads every finite number as the decimal string of its shortest round-trip digits', () => {
    // The slow path (the text the number prints as, read as a decimal string) is the reference.
    const viaText = (n: number) => toDecimalString(n.toString());
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(toDecimalString(n)).toBe(viaText(n));
      }),
      { numRuns: 20_000 },
    );
    for (const n of [0, -0, 1e-6, -1e-6, 9.99e-7, 1e21, -1e21, 123456789012345680000, 0.1, -23.4, 1500])
      expect(toDecimalString(n)).toBe(viaText(n));
    expect(toDecimalString(-0)).toBe('0');
    expect(toDecimalString(-23.4)).toBe('-23.4');
    expect(toDecimalString(1e-7)).toBe('0.0000001');
  });

  it('reads amounts of whole cents, the common case, as their shortest round-trip digits too', () => {
    const viaText = (n: number) => toDecimalString(n.toString());
    const wholeCents = fc.oneof(
      fc.integer({ min: -100_000_00, max: 100_000_00 }),
      fc.integer({ min: -(10 ** 15), max: 10 ** 15 }),
    );
    fc.assert(
      fc.property(wholeCents, (cents) => {
        expect(toDecimalString(cents / 100)).toBe(viaText(cents / 100));
      }),
      { numRuns: 50_000 },
    );
    // Around the edge of the integer path (1e13); 1.005 and 0.125 are not whole cents and take the other path.
    for (const n of [
      9_999_999_999_999.99,
      1e13,
      1e13 + 0.01,
      -9_999_999_999_999.99,
      0.01,
      -0.07,
      1.005,
      0.125,
      100.1,
    ])
      expect(toDecimalString(n)).toBe(viaText(n));
    expect(toDecimalString(-412.07)).toBe('-412.07');
    expect(toDecimalString(0.5)).toBe('0.5');
    expect(toDecimalString(12)).toBe('12');
  });
});

describe('decimalToSafeMinorUnits', () => {
  const digits = (max: number) =>
    fc.array(fc.constantFrom(...'0123456789'), { maxLength: max }).map((d) => d.join(''));
  const decimal = fc
    .tuple(fc.constantFrom('', '-', '+'), digits(20), fc.option(digits(8), { nil: undefined }))
    .map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? '' : `.${frac}`}`);

  it('is decimalToMinorUnits as a number where that needs no rounding and is safe, else undefined', () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 6 }), (value, scale) => {
        const fraction = value.includes('.') ? value.length - value.indexOf('.') - 1 : 0;
        const hasDigit = /\d/.test(value);
        const exact = hasDigit ? decimalToMinorUnits(value, scale) : undefined;
        const expected =
          exact !== undefined &&
          fraction <= scale &&
          exact >= BigInt(Number.MIN_SAFE_INTEGER) &&
          exact <= BigInt(Number.MAX_SAFE_INTEGER)
            ? Number(exact)
            : undefined;
        const actual = decimalToSafeMinorUnits(value, scale);
        // `+ 0` reads -0 (from "-0.00") as 0, as the bigint has it.
        expect(actual === undefined ? undefined : actual + 0).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses what it cannot read exactly', () => {
    expect(decimalToSafeMinorUnits('12.345', 2)).toBeUndefined();
    expect(decimalToSafeMinorUnits('9007199254740992', 0)).toBeUndefined();
    expect(decimalToSafeMinorUnits('1e5', 2)).toBeUndefined();
    expect(decimalToSafeMinorUnits('', 2)).toBeUndefined();
    expect(decimalToSafeMinorUnits('-12.3', 2)).toBe(-1230);
  });
});

describe('toDecimalString of an exponent past any bound', () => {
  it('refuses it without writing its zeros out', () => {
    // Written out, these would be a billion characters long (or a RangeError from String#repeat).
    for (const text of ['1e999999999', '-1e-999999999', '1.5e200000000'])
      expect(toDecimalString(text), text).toBeUndefined();
    expect(toDecimalString('1.5e14')).toBe('150000000000000');
    expect(toDecimalString(10n ** 15n)).toBeUndefined();
    expect(toDecimalString('1e-18')).toBe('0.000000000000000001');
    expect(toDecimalString('12345e-22')).toBeUndefined(); // 22 decimals
  });
});
