import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountCentsToDecimal, serviceCurrency, toAmountCents } from '../src/currencies.js';
import { currencyScale } from '../src/money.js';

describe("the service's currency table", () => {
  it("follows Sure's config/currencies.yml where Intl (CLDR) disagrees", () => {
    // Intl says 0 decimals for these; Sure (and ISO 4217) say 2, or 3 for IQD.
    for (const code of ['IDR', 'COP', 'PKR', 'IRR', 'LBP', 'ALL', 'MMK', 'YER'])
      expect(serviceCurrency(code), code).toEqual({ conversion: 100n, precision: 2 });
    expect(serviceCurrency('IQD')).toEqual({ conversion: 1000n, precision: 3 });
    // Intl says 2; Sure says 0.
    for (const code of ['HUF', 'XAU', 'XDR', 'GBX'])
      expect(serviceCurrency(code), code).toEqual({ conversion: 1n, precision: 0 });
    expect(serviceCurrency('MGA')).toEqual({ conversion: 5n, precision: 1 });
    expect(serviceCurrency('BTC')).toEqual({ conversion: 100_000_000n, precision: 8 });
    expect(currencyScale('IDR')).toBe(2);
  });

  it('keeps the familiar ones', () => {
    expect(serviceCurrency('USD')).toEqual({ conversion: 100n, precision: 2 });
    expect(serviceCurrency('JPY')).toEqual({ conversion: 1n, precision: 0 });
    expect(serviceCurrency('KWD')).toEqual({ conversion: 1000n, precision: 3 });
  });

  it("falls back to Intl's decimals for a code Sure does not list, and to 2 for one Intl rejects", () => {
    // XSU (the Sucre) is ISO 4217 with 2 decimals in Intl, and not in Sure's table.
    expect(serviceCurrency('XSU')).toEqual({ conversion: 100n, precision: 2 });
    expect(serviceCurrency('not a code')).toEqual({ conversion: 100n, precision: 2 });
  });
});

describe('toAmountCents and amountCentsToDecimal', () => {
  it('multiply by the conversion and round half away from zero, as Sure does', () => {
    expect(toAmountCents('12345.67', 'IDR')).toBe(1234567n);
    expect(toAmountCents('-42.105', 'USD')).toBe(-4211n);
    expect(toAmountCents('42.104', 'USD')).toBe(4210n);
    expect(toAmountCents('1234.5', 'HUF')).toBe(1235n);
    expect(toAmountCents('-1234.5', 'HUF')).toBe(-1235n);
    expect(toAmountCents('100.4', 'MGA')).toBe(502n);
    expect(toAmountCents('0.00000001', 'BTC')).toBe(1n);
    expect(toAmountCents('-0.004', 'USD')).toBe(0n);
    expect(() => toAmountCents('1e3', 'USD')).toThrow(RangeError);
  });

  it("read cents back as the exact decimal, with the currency's decimals", () => {
    expect(amountCentsToDecimal(1234567n, 'IDR')).toBe('12345.67');
    expect(amountCentsToDecimal(-4210n, 'USD')).toBe('-42.10');
    expect(amountCentsToDecimal(1235n, 'HUF')).toBe('1235');
    expect(amountCentsToDecimal(502n, 'MGA')).toBe('100.4');
    expect(amountCentsToDecimal(503n, 'MGA')).toBe('100.6');
    expect(amountCentsToDecimal(1n, 'BTC')).toBe('0.00000001');
    expect(amountCentsToDecimal(0n, 'KWD')).toBe('0.000');
  });

  it('round-trip every amount the currency can show exactly', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('USD', 'JPY', 'KWD', 'IDR', 'HUF', 'MGA', 'BTC', 'CLF'),
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        (currency, cents) => {
          expect(toAmountCents(amountCentsToDecimal(cents, currency), currency)).toBe(cents);
        },
      ),
    );
  });
});
