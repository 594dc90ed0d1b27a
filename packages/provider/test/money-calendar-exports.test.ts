import { describe, expect, it } from 'vitest';
import * as calendar from '@finsync/internals/calendar';
import * as money from '@finsync/internals/money';
import * as provider from '../src/index.js';

// The helpers live in @finsync/internals (tested there); the provider's public names must stay.
describe('money and calendar helpers', () => {
  it('are exported by the provider under their public names', () => {
    expect(provider.toDecimalString).toBe(money.toDecimalString);
    expect(provider.negateDecimal).toBe(money.negateDecimal);
    expect(provider.decimalToMinorUnits).toBe(money.decimalToMinorUnits);
    expect(provider.minorUnitsToDecimal).toBe(money.minorUnitsToDecimal);
    expect(provider.toCalendarDate).toBe(calendar.toCalendarDate);
    expect(provider.isValidCalendarDate).toBe(calendar.isValidCalendarDate);
    expect(provider.addDays).toBe(calendar.addDays);
    expect(provider.daysBetween).toBe(calendar.daysBetween);
  });

  it('work through the provider', () => {
    expect(provider.toDecimalString('-23.40')).toBe('-23.4');
    expect(provider.addDays('2026-02-28', 1)).toBe('2026-03-01');
  });
});
