import { describe, expect, it } from 'vitest';
import {
  direction,
  isMoneyIn,
  isNature,
  moneyInPositive,
  NATURES,
  storedFromProvider,
  storedFromWrite,
} from '../src/sign-convention.js';

describe('the sign convention', () => {
  it("the provider's money out is stored as a positive expense, its money in as negative income", () => {
    expect(storedFromProvider('-12.5')).toBe('12.5');
    expect(storedFromProvider('2500')).toBe('-2500');
    expect(storedFromProvider('0')).toBe('0');
  });

  it('the page points stored amounts the provider’s way again: money in positive', () => {
    expect(moneyInPositive('12.5')).toBe('-12.5');
    expect(moneyInPositive('-2500')).toBe('2500');
    expect(moneyInPositive(storedFromProvider('-7.01'))).toBe('-7.01');
    expect(isMoneyIn('-2500')).toBe(true);
    expect(isMoneyIn('12.5')).toBe(false);
    expect(isMoneyIn('0')).toBe(false);
  });

  it('nature decides the direction and ignores the sent sign; without it the amount is stored as sent', () => {
    for (const amount of ['50', '-50']) {
      expect(storedFromWrite(amount, 'income')).toBe('-50');
      expect(storedFromWrite(amount, 'inflow')).toBe('-50');
      expect(storedFromWrite(amount, 'expense')).toBe('50');
      expect(storedFromWrite(amount, 'outflow')).toBe('50');
    }
    expect(storedFromWrite('0', 'income')).toBe('0');
    expect(storedFromWrite('-1000', undefined)).toBe('-1000');
    expect(storedFromWrite('12.5', undefined)).toBe('12.5');
  });

  it('nature takes exactly the four values (lower case: callers lower it first)', () => {
    expect(NATURES).toEqual(['income', 'inflow', 'expense', 'outflow']);
    for (const nature of NATURES) expect(isNature(nature)).toBe(true);
    expect(isNature('gift')).toBe(false);
    expect(isNature('Income')).toBe(false);
    expect(isNature('')).toBe(false);
  });

  it('classification: below zero is income, anything else an expense; signed_amount_cents points money in up', () => {
    expect(direction('-50', 'USD')).toEqual({
      classification: 'income',
      amount_cents: 5000,
      signed_amount_cents: 5000,
    });
    expect(direction('12.5', 'USD')).toEqual({
      classification: 'expense',
      amount_cents: 1250,
      signed_amount_cents: -1250,
    });
    expect(direction('0', 'USD')).toEqual({
      classification: 'expense',
      amount_cents: 0,
      signed_amount_cents: 0,
    });
  });

  it('classification follows the sign even when the amount rounds to 0 minor units, as the service does', () => {
    expect(direction('-0.004', 'USD')).toEqual({
      classification: 'income',
      amount_cents: 0,
      signed_amount_cents: 0,
    });
    const expense = direction('0.004', 'USD');
    expect(expense).toEqual({ classification: 'expense', amount_cents: 0, signed_amount_cents: 0 });
    expect(Object.is(expense.signed_amount_cents, -0)).toBe(false);
  });

  it("amount_cents counts the service's minor units: ×100 for IDR and COP, ×1 for HUF, ×1000 for IQD, ×5 for MGA", () => {
    expect(direction('12345.67', 'IDR').amount_cents).toBe(1234567);
    expect(direction('-2500.5', 'COP')).toMatchObject({ classification: 'income', amount_cents: 250050 });
    expect(direction('1234.5', 'HUF').amount_cents).toBe(1235);
    expect(direction('1.234', 'IQD').amount_cents).toBe(1234);
    expect(direction('100.4', 'MGA').amount_cents).toBe(502);
    expect(direction('1500', 'JPY').amount_cents).toBe(1500);
  });
});
