import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { ProviderClient, addDays, type TransactionPage } from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();

/** A card payment at 23:30 UTC every day from `first` to `last`, and one at 00:30 UTC on each day too. */
function nearMidnight(first: string, last: string): WireRow[] {
  const rows: WireRow[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    for (const time of ['00:30', '23:30']) {
      rows.push({
        id: `tx_${day}_${time}`,
        accountId: 4711,
        amount: -12.5,
        currency: 'USD',
        date: `${day}T${time}:00Z`,
        merchant: 'Diner',
        description: 'CARD PAYMENT',
        isPending: false,
      });
    }
  }
  return rows;
}

/** Files every row under the day of its own timestamp, as the provider does for `from` and `to`. */
function serve(rows: WireRow[]): Array<{ from: string; to: string }> {
  const asked: Array<{ from: string; to: string }> = [];
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, ({ request }) => {
      const url = new URL(request.url);
      const from = url.searchParams.get('from')!;
      const to = url.searchParams.get('to')!;
      asked.push({ from, to });
      const listed = rows.filter((r) => r.date.slice(0, 10) >= from && r.date.slice(0, 10) <= to);
      return HttpResponse.json({ transactions: listed, total: listed.length });
    }),
  );
  return asked;
}

async function walk(timeZone: string | undefined, from: string, to: string): Promise<TransactionPage[]> {
  const client = new ProviderClient({
    apiKey: KEY,
    rateLimit: false,
    windowDays: 30,
    ...(timeZone ? { timeZone } : {}),
  });
  const pages: TransactionPage[] = [];
  for await (const page of client.listTransactions(4711, { from, to }).pages()) pages.push(page);
  return pages;
}

describe('a range walked in windows with a time zone', () => {
  it.each(['Asia/Tokyo', 'America/Los_Angeles', 'Pacific/Kiritimati'])(
    'keeps every row near midnight once, in the window of its day in %s',
    async (timeZone) => {
      const rows = nearMidnight('2025-12-25', '2026-04-05');
      serve(rows);
      const pages = await walk(timeZone, '2026-01-01', '2026-03-31');
      const dayIn = (date: string) =>
        new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date(date)).slice(0, 10);
      const expected = rows
        .filter((r) => dayIn(r.date) >= '2026-01-01' && dayIn(r.date) <= '2026-03-31')
        .map((r) => r.id);
      const got = pages.flatMap((p) => p.transactions.map((t) => t.id));
      expect(got.sort()).toEqual(expected.sort());
      for (const page of pages) {
        for (const row of page.transactions) {
          expect(row.date >= page.from! && row.date <= page.to!).toBe(true);
          expect(row.date).toBe(dayIn(`${row.id!.slice(3, 13)}T${row.id!.slice(14)}:00Z`));
        }
      }
    },
  );

  it('asks for the windows themselves when no zone is set', async () => {
    const asked = serve(nearMidnight('2026-01-01', '2026-01-31'));
    const pages = await walk(undefined, '2026-01-01', '2026-01-31');
    expect(asked).toEqual([
      // Laid back from the last day: the short window is the oldest.
      { from: '2026-01-01', to: '2026-01-01' },
      { from: '2026-01-02', to: '2026-01-31' },
    ]);
    expect(pages.flatMap((p) => p.transactions)).toHaveLength(62);
  });
});
