import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../src/index.js';
import { BASE, createHarness, expectFeedReplaysToMirror, server, useMsw } from './harness.js';

useMsw();

describe('the windows of a read', () => {
  it('keep the most recent days whole: a hold and its posting of the last two days never straddle a window', async () => {
    const storage = new MemoryStorage();
    // 1–30 June in windows of 29 days: laid back from today (30 June), 1 June alone, then 2–30 June.
    // Counted forward from 1 June, the hold (29 June) and its posting (30 June) fell in two windows:
    // the feed showed the hold, then the posting replacing it, where one window shows the posting alone.
    const h = await createHarness({ storage, engine: { startDate: '2026-06-01', windowDays: 29 } });
    const asked: Array<[string | null, string | null]> = [];
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, ({ request }) => {
        const url = new URL(request.url);
        const [from, to] = [url.searchParams.get('from'), url.searchParams.get('to')];
        asked.push([from, to]);
        const template = {
          currency: 'GBP',
          description: 'CORNER CAFE',
          merchant: 'Corner Cafe',
          amount: -7.5,
        };
        const rows = [
          { ...template, id: null, date: '2026-06-29', isPending: true },
          { ...template, id: 'tx_cafe', date: '2026-06-30', isPending: false },
        ].filter((row) => (from === null || row.date >= from) && (to === null || row.date <= to));
        return HttpResponse.json({ transactions: rows, total: rows.length });
      }),
    );
    const report = await h.engine.sync('c1');
    expect(report.ok, report.issues.map((i) => i.message).join('; ')).toBe(true);
    expect(asked).toEqual([
      ['2026-06-01', '2026-06-01'],
      ['2026-06-02', '2026-06-30'],
    ]);
    const feed = await expectFeedReplaysToMirror(storage);
    expect(
      feed
        .filter((entry) => entry.entity === 'transaction' && entry.accountId === '4711')
        .map((entry) => [entry.op, entry.key]),
    ).toEqual([['added', 'id:tx_cafe']]);
  });
});
