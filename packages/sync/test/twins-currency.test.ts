/**
 * Pairing rows of which some were recorded without a currency (listed without one while their
 * account's was not known): rows of a currency pair as they always did, and a row without one takes
 * only what no row of a currency could also take.
 */
import { describe, expect, it } from 'vitest';
import { pairByContent, pairTwins } from '../src/engine/twins.js';
import type { MirrorTransaction } from '../src/model.js';

const row = (key: string, date: string, currency: string | null, isPending: boolean): MirrorTransaction => ({
  connectionId: 'c1',
  accountId: 'a',
  key,
  providerId: isPending ? null : key.slice(3),
  amount: '-20.00',
  currency,
  date,
  merchant: 'Cafe',
  description: 'CAFE',
  isPending,
});
const pairs = (map: Map<string, MirrorTransaction>) =>
  [...map].map(([key, to]) => `${key}->${to.key}`).sort();

describe('pairing beside rows recorded without a currency', () => {
  it('a hold without one does not take the only twin of a hold in a currency', () => {
    const holds = [row('h:a', '2026-03-01', null, true), row('h:b', '2026-03-02', 'USD', true)];
    const posted = [row('id:p1', '2026-03-03', 'USD', false), row('id:p2', '2026-03-04', 'EUR', false)];
    expect(pairs(pairTwins(holds, [posted, []], { sameDay: true }))).toEqual(['h:a->id:p2', 'h:b->id:p1']);
  });

  it('two holds in a currency for one posting in it still pair none, whatever a hold without one does', () => {
    const holds = [
      row('h:b', '2026-03-01', 'USD', true),
      row('h:c', '2026-03-01', 'USD', true),
      row('h:z', '2026-03-01', null, true),
    ];
    const posted = [
      row('id:u', '2026-03-02', 'USD', false),
      row('id:v1', '2026-03-02', 'EUR', false),
      row('id:v2', '2026-03-02', 'EUR', false),
    ];
    const found = pairs(pairTwins(holds, [posted, []], { sameDay: true }));
    expect(found.filter((pair) => pair.startsWith('h:b') || pair.startsWith('h:c'))).toEqual([]);
    expect(found.some((pair) => pair.endsWith('id:u'))).toBe(false);
  });

  it('two rows of different currencies never pair', () => {
    const holds = [row('h:a', '2026-03-01', 'GBP', true)];
    const posted = [row('id:p', '2026-03-02', 'USD', false)];
    expect(pairs(pairTwins(holds, [posted, []], { sameDay: true }))).toEqual([]);
    expect(pairs(pairByContent([row('id:a', '2026-03-01', 'GBP', false)], posted))).toEqual([]);
  });

  it('a re-issued id: the row in a currency keeps its successor, the row without one takes what is left', () => {
    const vanished = [row('id:a', '2026-03-01', null, false), row('id:b', '2026-03-01', 'USD', false)];
    const fresh = [row('id:c', '2026-03-01', 'USD', false), row('id:d', '2026-03-01', 'EUR', false)];
    expect(pairs(pairByContent(vanished, fresh))).toEqual(['id:a->id:d', 'id:b->id:c']);
  });
});
