/**
 * Lots of one security: the provider does not say in which order it lists them, so listing the same
 * lots in another order must change nothing, and a changed lot must be one `modified` row, not a
 * reshuffle of every lot's key.
 */
import type { Holding } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { holdingRecords } from '../src/engine/holding-lots.js';
import type { MirrorHolding } from '../src/index.js';

const security = { name: 'Acme', tickerSymbol: 'AAA', isin: null, cusip: null, figi: null, currency: 'USD' };
const lot = (quantity: string, value: string): Holding => ({
  providerId: null,
  security,
  quantity,
  price: '100',
  value,
  costBasis: null,
  currency: 'USD',
  raw: null,
});
const storedOf = (records: MirrorHolding[]) => new Map(records.map((r) => [r.key, r]));
const shown = (records: MirrorHolding[]) =>
  records.map((r) => `${r.key.replace(/^s:\w+/, 'AAA')} ${r.quantity}`);

describe('lots of one security', () => {
  const first = holdingRecords('c1', '9', [lot('1', '100'), lot('2', '200'), lot('3', '300')]);

  it('are keyed apart, the first under the plain key', () => {
    expect(shown(first)).toEqual(['AAA 1', 'AAA#1 2', 'AAA#2 3']);
  });

  it('keep their keys when listed in another order', () => {
    const again = holdingRecords(
      'c1',
      '9',
      [lot('3', '300'), lot('1', '100'), lot('2', '200')],
      storedOf(first),
    );
    expect(shown(again)).toEqual(['AAA#2 3', 'AAA 1', 'AAA#1 2']);
  });

  it('keep their keys when the price moves and the order changes: units and cost tell the lots apart', () => {
    const priced = (quantity: string, price: string): Holding => ({
      ...lot(quantity, String(Number(quantity) * Number(price))),
      price,
      costBasis: String(Number(quantity) * 80),
    });
    const before = holdingRecords('c1', '9', [priced('10', '100'), priced('5', '100')]);
    const after = holdingRecords('c1', '9', [priced('5', '101'), priced('10', '101')], storedOf(before));
    expect(shown(after)).toEqual(['AAA#1 5', 'AAA 10']);
  });

  it('change one key when one lot changes, whatever the order', () => {
    const again = holdingRecords(
      'c1',
      '9',
      [lot('3', '300'), lot('2', '250'), lot('1', '100')],
      storedOf(first),
    );
    expect(shown(again)).toEqual(['AAA#2 3', 'AAA#1 2', 'AAA 1']);
    expect(again.find((r) => r.key.endsWith('#1'))!.value).toBe('250');
  });

  it('leave the others as they were when one is sold, and give a new lot a number no stored lot has', () => {
    const sold = holdingRecords('c1', '9', [lot('1', '100'), lot('3', '300')], storedOf(first));
    expect(shown(sold)).toEqual(['AAA 1', 'AAA#2 3']);
    const bought = holdingRecords(
      'c1',
      '9',
      [lot('4', '400'), lot('3', '300'), lot('1', '100')],
      storedOf(sold),
    );
    expect(shown(bought)).toEqual(['AAA#1 4', 'AAA#2 3', 'AAA 1']);
  });

  it('do not take the key of another holding whose provider id looks numbered', () => {
    const numberedId: Holding = { ...lot('9', '900'), providerId: 'x#1' };
    const lotsOfX: Holding[] = [
      { ...lot('1', '100'), providerId: 'x' },
      { ...lot('2', '200'), providerId: 'x' },
    ];
    const before = holdingRecords('c1', '9', [numberedId]);
    expect(before.map((r) => r.key)).toEqual(['id:x#1']);
    const after = holdingRecords('c1', '9', [numberedId, ...lotsOfX], storedOf(before));
    expect(after.map((r) => r.key)).toEqual(['id:x#1', 'id:x', 'id:x#2']);
    const reversed = holdingRecords('c1', '9', [...lotsOfX, numberedId], storedOf(before));
    expect(reversed.map((r) => r.key)).toEqual(['id:x', 'id:x#2', 'id:x#1']);
    // Neither stored: still three keys.
    const fresh = holdingRecords('c1', '9', [...lotsOfX, numberedId]);
    expect(fresh.map((r) => r.key)).toEqual(['id:x', 'id:x#2', 'id:x#1']);
  });
});

describe('rows keyed alike for want of ids', () => {
  it('keep their securities when the prices move and the order turns: no key passes to another security', () => {
    // One raw id for two securities (a provider that reuses it): both rows are keyed `id:h`.
    const row = (name: string, price: string): Holding => ({
      providerId: 'h',
      security: { ...security, name, tickerSymbol: name },
      quantity: '10',
      price,
      value: String(Number(price) * 10),
      costBasis: '900',
      currency: 'USD',
      raw: null,
    });
    const before = holdingRecords('c1', '9', [row('AAA', '100'), row('BBB', '100')]);
    const after = holdingRecords('c1', '9', [row('BBB', '101'), row('AAA', '99')], storedOf(before));
    const keyOf = (records: MirrorHolding[], name: string) => records.find((r) => r.name === name)!.key;
    expect(keyOf(after, 'AAA')).toBe(keyOf(before, 'AAA'));
    expect(keyOf(after, 'BBB')).toBe(keyOf(before, 'BBB'));
  });

  it('match many lots of one security by what they hold, whatever their order', () => {
    const lots = Array.from({ length: 2_000 }, (_, i) => lot(String(i + 1), String((i + 1) * 100)));
    const first = holdingRecords('c1', '9', lots);
    // Every price moves and the order turns: each lot keeps its key, by units.
    const moved = [...lots]
      .reverse()
      .map((l) => ({ ...l, price: '101', value: String(Number(l.quantity) * 101) }));
    const again = holdingRecords('c1', '9', moved, storedOf(first));
    const keyByQuantity = new Map(first.map((r) => [r.quantity, r.key]));
    for (const record of again) expect(record.key).toBe(keyByQuantity.get(record.quantity));
  });

  it('keep their keys when a security gains an identifier as its price moves, matched by units at last', () => {
    const row = (quantity: string, figi: string | null, price: string): Holding => ({
      providerId: 'pos-1',
      security: { ...security, figi },
      quantity,
      price,
      value: String(Number(price) * Number(quantity)),
      costBasis: null,
      currency: 'USD',
      raw: null,
    });
    const before = holdingRecords('c1', '9', [row('1', null, '100'), row('2', null, '100')]);
    const after = holdingRecords(
      'c1',
      '9',
      [row('2', 'BBG000', '101'), row('1', 'BBG000', '101')],
      storedOf(before),
    );
    const keyOf = (records: MirrorHolding[], quantity: string) =>
      records.find((r) => r.quantity === quantity)!.key;
    expect(keyOf(after, '1')).toBe(keyOf(before, '1'));
    expect(keyOf(after, '2')).toBe(keyOf(before, '2'));
  });
});
