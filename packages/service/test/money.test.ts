import { describe, expect, it } from 'vitest';
import { currencyScale } from '../src/index.js';
import { castDate, castUuid } from '../src/fake/cast.js';
import {
  formatServiceMoney,
  resolveLocale,
  rubyToF,
  toMinorUnits,
  toUnits,
  unitsToDecimal,
} from '../src/fake/money.js';

describe('money helpers', () => {
  it.each([
    ['75.5', 'USD', 'en', '$75.50'],
    ['-1000', 'USD', 'en', '-$1,000.00'],
    ['12.34', 'USD', 'en', '$12.34'],
    ['-12.34', 'USD', 'en', '-$12.34'],
    ['-0.001', 'USD', 'en', '$0.00'],
    ['1234.5', 'JPY', 'en', '¥1,235'],
    ['1234.56', 'EUR', 'en', '€1,234.56'],
    ['1234.56', 'EUR', 'de', '1.234,56 €'],
    ['-1234.56', 'EUR', 'es', '-1.234,56 €'],
    ['1234.56', 'EUR', 'fr', '1\u00a0234,56\u00a0€'],
    ['1234.56', 'EUR', 'pt-BR', '€ 1.234,56'],
    ['12', 'CAD', 'en', 'CA$12.00'],
    ['3', 'AUD', 'en', 'AU$3.00'],
    ['1.5', 'KWD', 'en', 'KD1.500'],
    ['1234567.891', 'GBP', 'en', '£1,234,567.89'],
  ])('formatServiceMoney(%s, %s, %s) = %s', (amount, currency, locale, expected) => {
    expect(formatServiceMoney(amount, currency, locale)).toBe(expected);
  });

  it('minor units follow the currency scale, rounding half away from zero', () => {
    expect(currencyScale('USD')).toBe(2);
    expect(currencyScale('JPY')).toBe(0);
    expect(currencyScale('KWD')).toBe(3);
    expect(toMinorUnits('42.1', 'USD')).toBe(4210n);
    expect(toMinorUnits('-0.005', 'USD')).toBe(-1n);
    expect(toMinorUnits(1234.5, 'JPY')).toBe(1235n);
    expect(toMinorUnits('1.2345', 'KWD')).toBe(1235n);
  });

  it('stores decimals with 4 places, canonically', () => {
    expect(unitsToDecimal(toUnits('042.1000')!)).toBe('42.1');
    expect(unitsToDecimal(toUnits('-0.00001')!)).toBe('0');
    expect(unitsToDecimal(toUnits(0.1 + 0.2)!)).toBe('0.3');
    expect(toUnits('1,234.56')).toBeUndefined();
  });

  it("rubyToF mimics Ruby's String#to_f", () => {
    expect(rubyToF('abc')).toBe(0);
    expect(rubyToF('1,234.56')).toBe(1);
    expect(rubyToF('12.5kg')).toBe(12.5);
    expect(rubyToF('  -3.25')).toBe(-3.25);
    expect(rubyToF('1_000')).toBe(1000);
    expect(rubyToF('1e3')).toBe(1000);
    expect(rubyToF('.5')).toBe(0.5);
  });

  it('locales resolve like the service: ?locale, then Accept-Language, then en', () => {
    expect(resolveLocale(null, 'de-DE,de;q=0.9')).toBe('de');
    expect(resolveLocale('pt-br', 'de')).toBe('pt-BR');
    expect(resolveLocale('xx', 'ja')).toBe('en');
  });

  it('casts ids and dates like the service columns', () => {
    expect(castUuid('{6F1C2A9E0D4B4C1E9A572F0E8B1D3C44}')).toBe('6f1c2a9e-0d4b-4c1e-9a57-2f0e8b1d3c44');
    expect(castUuid('999999')).toBeNull();
    expect(castDate('2024-02-29')).toBe('2024-02-29');
    expect(castDate('2024-02-30')).toBeNull();
    expect(castDate('2026-05-02T23:00:00Z')).toBe('2026-05-02');
    expect(castDate('May 3, 2026')).toBe('2026-05-03');
    expect(castDate('')).toBeNull();
    expect(castDate(20260502)).toBeNull();
  });
});
