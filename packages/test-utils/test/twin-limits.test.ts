import { describe, expect, it } from 'vitest';
import { holdsTakenForLaterTwins, type TwinRuleRow } from '../src/index.js';

const coffee = (date: string, pending: boolean): TwinRuleRow => ({
  date,
  pending,
  lookalike: 'coffee -4.50',
});

describe('holdsTakenForLaterTwins', () => {
  it('excuses a hold a later posting of its price and payee could stand for, 1 to 8 days on', () => {
    const hold = coffee('2026-07-01', true);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-07-02', false)])).toEqual([hold]);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-07-09', false)])).toEqual([hold]);
  });

  it('excuses nothing else: a posted row, a posting of the same day or over 8 days on, another payee', () => {
    const hold = coffee('2026-07-01', true);
    expect(holdsTakenForLaterTwins([coffee('2026-07-01', false)], [coffee('2026-07-02', false)])).toEqual([]);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-07-01', false)])).toEqual([]);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-07-10', false)])).toEqual([]);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-06-30', false)])).toEqual([]);
    expect(
      holdsTakenForLaterTwins([hold], [{ ...coffee('2026-07-02', false), lookalike: 'tea -4.50' }]),
    ).toEqual([]);
    expect(holdsTakenForLaterTwins([hold], [coffee('2026-07-02', true)])).toEqual([]);
  });

  it('lets one posting stand for one hold only, the oldest', () => {
    const older = coffee('2026-07-01', true);
    const newer = coffee('2026-07-02', true);
    expect(holdsTakenForLaterTwins([newer, older], [coffee('2026-07-03', false)])).toEqual([older]);
    expect(
      holdsTakenForLaterTwins([newer, older], [coffee('2026-07-03', false), coffee('2026-07-04', false)]),
    ).toEqual([older, newer]);
  });
});
