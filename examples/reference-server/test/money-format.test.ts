import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyScale } from '@finsync/provider';
import { formatMoney } from '../src/money-format.js';

/** What Intl itself writes with the service's decimals: the definition `formatMoney` must match. */
function intl(amount: string, currency: string): string {
  const digits = currencyScale(currency);
  const decimals = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  let formatter: Intl.NumberFormat;
  try {
    formatter = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      signDisplay: 'negative',
      ...decimals,
    });
  } catch {
    formatter = new Intl.NumberFormat('en-US', { ...decimals, signDisplay: 'negative' });
  }
  return formatter.format(amount as unknown as number);
}

const CURRENCIES = [...Intl.supportedValuesOf('currency'), 'XYZ', 'ZZZ', 'abc', 'TOOLONG', ''];

/** Plain decimal text, weighted towards the cases rounding and grouping get wrong: nines, fives, zeros. */
const digits = (min: number, max: number) =>
  fc
    .array(fc.constantFrom('0', '1', '4', '5', '9', '9', '9', '5'), { minLength: min, maxLength: max })
    .map((d) => d.join(''));
const decimalText = fc
  .tuple(fc.constantFrom('', '-'), digits(1, 22), fc.option(digits(1, 8), { nil: undefined }))
  .map(([sign, integer, fraction]) => `${sign}${integer}${fraction === undefined ? '' : `.${fraction}`}`);

describe('formatMoney', () => {
  it('writes the service’s shapes', () => {
    expect(formatMoney('42.1', 'USD')).toBe('$42.10');
    expect(formatMoney('-1000', 'USD')).toBe('-$1,000.00');
    expect(formatMoney('1234.5', 'JPY')).toBe('¥1,235');
    expect(formatMoney('-1234567.125', 'GBP')).toBe('-£1,234,567.13');
    expect(formatMoney('9.995', 'EUR')).toBe('€10.00');
    expect(formatMoney('-0.001', 'USD')).toBe('$0.00');
    expect(formatMoney('-0.0005', 'BHD')).toBe('-BHD\u00a00.001');
    expect(formatMoney('007.5', 'CHF')).toBe('CHF\u00a07.50');
    expect(formatMoney('12', 'not a currency')).toBe('12.00');
  });

  it("shows the service's decimals where Intl's differ, so the text agrees with amount_cents", () => {
    expect(formatMoney('12345.67', 'IDR')).toBe('IDR\u00a012,345.67');
    expect(formatMoney('-2500.5', 'COP')).toBe('-COP\u00a02,500.50');
    expect(formatMoney('1234.5', 'HUF')).toBe('HUF\u00a01,235');
    expect(formatMoney('1.2345', 'IQD')).toBe('IQD\u00a01.235');
  });

  it('matches Intl for every currency it knows, and for codes it does not', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), decimalText, (currency, amount) => {
        expect(formatMoney(amount, currency)).toBe(intl(amount, currency));
      }),
      { numRuns: 20_000 },
    );
    for (const currency of CURRENCIES)
      for (const amount of ['0', '-0', '999.999', '-999.9949', '1000000', '0.5', '-0.5'])
        expect(formatMoney(amount, currency), `${amount} ${currency}`).toBe(intl(amount, currency));
  });

  it('leaves any other text to Intl, as before', () => {
    for (const amount of ['1e3', '+5', ' 7', '.5', '12.', '1'.repeat(30), 'abc'])
      expect(formatMoney(amount, 'USD')).toBe(intl(amount, 'USD'));
  });
});
