import { toDecimalString } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { ConnectionReport, SyncProgress } from '../src/index.js';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  server,
  transactionRequests,
  useMsw,
} from './harness.js';

useMsw();

describe('first sync', () => {
  it('mirrors accounts, balances, transactions and holdings, and reports success', async () => {
    const h = await createHarness();
    const report = await h.engine.sync('c1');
    expect(report.issues).toEqual([]);
    expect(report).toMatchObject({ ok: true, outcome: 'success', status: 'active' });

    const accounts = await h.storage.listAccounts('c1');
    expect(accounts.map((a) => [a.id, a.state])).toEqual(
      h.sandbox
        .listAccounts()
        .map((a) => [a.id, a.status === 'ACTIVE' ? 'active' : 'inactive'])
        .sort(),
    );
    await expectMirrorMatchesProvider(h);

    const savings = accounts.find((a) => a.id === '4712')!;
    expect(savings.currency).toBe('EUR'); // absent from /accounts; taken from /balance
    const card = accounts.find((a) => a.id === '4713')!;
    expect(card.balance!.amount.startsWith('-')).toBe(true);

    // The disconnected account is kept but never fetched.
    const inactive = h.sandbox.listAccounts().filter((a) => a.status !== 'ACTIVE');
    expect(inactive.length).toBeGreaterThan(0);
    for (const a of inactive)
      expect(h.sandbox.requests.filter((r) => r.path.includes(`/accounts/${a.id}/`))).toEqual([]);

    expect((await h.storage.listHoldings('c1', '5001')).length).toBeGreaterThan(0);
    const states = await h.storage.listAccountStates('c1');
    expect(states.find((s) => s.accountId === '5002')?.holdingsSupported).toBe(false);
    expect(states.find((s) => s.accountId === '5001')?.holdingsSupported).toBe(true);

    // Every row received is stored, except holds listed beside their posted twin: those are hidden.
    const fetched = report.accounts.reduce((n, a) => n + a.fetched, 0);
    const added = report.accounts.reduce((n, a) => n + a.added, 0);
    const hidden = report.accounts.reduce((n, a) => n + a.hidden, 0);
    expect(hidden).toBeGreaterThan(0);
    expect(added + hidden).toBe(fetched);
    expect(await h.storage.countTransactions('c1')).toBe(added);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('keeps two identical pending purchases as two rows', async () => {
    const h = await createHarness({ sandbox: { historyDays: 120, transactionsPerDay: 4 } });
    await h.engine.sync('c1');
    let twins = 0;
    for (const account of h.sandbox.listAccounts().filter((a) => a.status === 'ACTIVE')) {
      const pending = await h.storage.findTransactions('c1', account.id, { pending: true });
      const groups = new Map<string, number>();
      for (const p of pending) {
        const sig = `${p.date}|${p.amount}|${p.merchant}|${p.description}`;
        groups.set(sig, (groups.get(sig) ?? 0) + 1);
      }
      twins += [...groups.values()].filter((n) => n >= 2).length;
    }
    expect(twins).toBeGreaterThan(0);
    await expectMirrorMatchesProvider(h);
  });

  it('starts at the configured date and walks it in windows', async () => {
    const h = await createHarness({ engine: { startDate: '2026-06-01', windowDays: 10 } });
    await h.engine.sync('c1');
    const requests = transactionRequests(h.sandbox, '4711');
    expect(requests.map((r) => r.query.from)).toEqual(['2026-06-01', '2026-06-11', '2026-06-21']);
    const rows = await h.storage.findTransactions('c1', '4711');
    expect(rows.every((r) => r.date >= '2026-06-01')).toBe(true);
  });

  it('reports progress a caller can drive a progress bar with', async () => {
    const h = await createHarness();
    const events: SyncProgress[] = [];
    h.engine.on('progress', (p) => events.push(p));
    const done: string[] = [];
    h.engine.on('account:done', ({ report }) => done.push(report.accountId));
    const report = await h.engine.sync('c1');
    const last = events.at(-1)!;
    expect(last.accountsDone).toBe(last.accountsTotal);
    expect(last.transactionsFetched).toBe(report.accounts.reduce((n, a) => n + a.fetched, 0));
    expect(
      events.every((e, i) => i === 0 || e.transactionsFetched >= events[i - 1]!.transactionsFetched),
    ).toBe(true);
    expect(done).toHaveLength(last.accountsTotal);
  });
});

describe('later syncs', () => {
  it('a re-sync with nothing new makes one transactions request per account and writes nothing to the feed', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    // The second run checks each balance against the first for the first time: that verdict is news.
    await h.engine.sync('c1');
    const seq = await h.storage.lastSeq();
    h.sandbox.resetRequestLog();
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    expect(await h.storage.lastSeq()).toBe(seq);
    const active = h.sandbox.listAccounts().filter((a) => a.status === 'ACTIVE');
    for (const a of active) expect(transactionRequests(h.sandbox, a.id)).toHaveLength(1);
    // The overlap window is re-read: 31 days back from the watermark with pending rows, asked from 7
    // days before that (REDATED_MARGIN_DAYS), so a row re-dated out of those days is seen moved.
    expect(transactionRequests(h.sandbox, '4711')[0]!.query.from).toBe('2026-05-23');
    // Holdings are not asked again where the provider said it has none.
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/5002/holdings'))).toEqual([]);
  });

  it('a new day posts pending rows in place of their pending twins, and the feed links them', async () => {
    const h = await createHarness({ sandbox: { historyDays: 60, transactionsPerDay: 4 } });
    await h.engine.sync('c1');
    const seq = await h.storage.lastSeq();
    h.sandbox.advanceDays(4);
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    await expectMirrorMatchesProvider(h);
    const feed = await h.storage.readChanges({ after: seq, limit: 10_000 });
    const replacing = feed
      .filter((e) => e.entity === 'transaction')
      .filter((e) => e.op === 'added' && e.reason === 'posted');
    expect(replacing.length).toBeGreaterThan(0);
    for (const entry of replacing) {
      expect(entry.replaces).toMatch(/^h:/);
      const removal = feed.find((e) => e.op === 'removed' && e.key === entry.replaces);
      expect(removal).toMatchObject({ replacedBy: entry.key, reason: 'posted' });
      expect(removal!.seq).toBeGreaterThan(entry.seq);
    }
    expect(feed.some((e) => e.entity === 'transaction' && e.op === 'added' && !('replaces' in e))).toBe(true);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('a hold that settles at another amount (a tip) is linked to its posting, so an app keeps its row', async () => {
    const h = await createHarness({ sandbox: { lingeringHolds: false } });
    const listed = (accountId: string) => [...h.sandbox.transactionsOf(accountId, { includePending: true })];
    // A pending purchase with no other row of its payee within 9 days either side.
    const near = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= 9 * 86_400_000;
    const target = h.sandbox
      .listAccounts()
      .filter((a) => a.status === 'ACTIVE')
      .flatMap((a) => listed(a.id))
      .find(
        (t) =>
          t.isPending &&
          t.merchant !== null &&
          listed(t.accountId).every(
            (o) => o.purchaseId === t.purchaseId || o.merchant !== t.merchant || !near(o.date, t.date),
          ),
      )!;
    expect(target).toBeDefined();
    const accountId = target.accountId;
    // The bank lists the hold before the tip (or a fuel pre-authorisation): 80 % of what posts.
    const beforeTip = (Math.round(Number(target.amount) * 80) / 100).toFixed(2);
    server.use(
      http.get(`${BASE}/accounts/${accountId}/transactions`, async ({ request }) => {
        const body = (await (await h.sandbox.handle(request)).json()) as {
          transactions: Array<{ isPending: boolean; date: string; merchant: string | null; amount: number }>;
        };
        for (const row of body.transactions)
          if (row.isPending && row.date === target.date && row.merchant === target.merchant)
            row.amount = Number(beforeTip);
        return HttpResponse.json(body);
      }),
    );
    await h.engine.sync('c1');
    const [shownHold] = (await h.storage.findTransactions('c1', accountId, { pending: true })).filter(
      (t) => t.merchant === target.merchant,
    );
    expect(shownHold).toMatchObject({ amount: beforeTip, date: target.date });
    const seq = await h.storage.lastSeq();
    while (listed(accountId).some((t) => t.purchaseId === target.purchaseId && t.isPending)) {
      h.sandbox.advanceDays(1);
      expect((await h.engine.sync('c1')).ok).toBe(true);
    }
    const posting = listed(accountId).find((t) => t.purchaseId === target.purchaseId)!;
    const feed = (await h.storage.readChanges({ after: seq, limit: 10_000 })).filter(
      (e) => e.entity === 'transaction',
    );
    expect(feed.find((e) => e.op === 'added' && e.replaces === shownHold!.key)).toMatchObject({
      key: `id:${posting.id}`,
      reason: 'posted',
      record: { amount: toDecimalString(posting.amount), isPending: false },
    });
    expect(feed.find((e) => e.op === 'removed' && e.key === shownHold!.key)).toMatchObject({
      replacedBy: `id:${posting.id}`,
      reason: 'posted',
    });
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('converges over many days and re-syncs', async () => {
    const h = await createHarness();
    for (let day = 0; day < 12; day += 1) {
      h.sandbox.advanceDays(day % 3);
      const report = await h.engine.sync('c1');
      expect(report.ok).toBe(true);
    }
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('a bank that re-issues every posted id each day: one row per purchase, linked across ids', async () => {
    const h = await createHarness();
    const reissuing = h.sandbox.listAccounts().find((a) => a.reissueIdsEveryDays !== null)!;
    await h.engine.sync('c1');
    const count = await h.storage.countTransactions('c1', reissuing.id);
    const seq = await h.storage.lastSeq();
    h.sandbox.advanceDays(1);
    const report = await h.engine.sync('c1');
    const account = report.accounts.find((a) => a.accountId === reissuing.id)!;
    expect(account.replacements['id-changed']).toBeGreaterThan(10);
    // Every re-read posted row came back under a new id and is the same row: nothing added beyond
    // the day's new purchases, nothing lost.
    await expectMirrorMatchesProvider(h);
    const feed = (await h.storage.readChanges({ after: seq, limit: 10_000 }))
      .filter((e) => e.entity === 'transaction')
      .filter((e) => e.accountId === reissuing.id);
    const changed = feed.filter((e) => e.op === 'added' && e.reason === 'id-changed');
    expect(changed).toHaveLength(account.replacements['id-changed']);
    for (const entry of changed) {
      const removal = feed.find((e) => e.op === 'removed' && e.key === entry.replaces);
      expect(removal).toMatchObject({ replacedBy: entry.key, reason: 'id-changed' });
      expect(removal!.seq).toBeGreaterThan(entry.seq);
    }
    const plainAdds = feed.filter((e) => e.op === 'added' && !e.replaces).length;
    const plainRemovals = feed.filter((e) => e.op === 'removed' && !e.replacedBy).length;
    expect(await h.storage.countTransactions('c1', reissuing.id)).toBe(count + plainAdds - plainRemovals);
    expect(plainAdds).toBeLessThan(15);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('a sync during a run joins it instead of starting another', async () => {
    const h = await createHarness();
    const [a, b] = [h.engine.sync('c1'), h.engine.sync('c1')];
    expect(await a).toBe(await b);
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/accounts'))).toHaveLength(1);
  });

  it('syncs every connection when no id is given', async () => {
    const h = await createHarness();
    const all = await h.engine.sync();
    expect(all.ok).toBe(true);
    expect(all.connections.map((c: ConnectionReport) => c.connectionId)).toEqual(['c1']);
  });

  it('keeps every lot of one security, and rows without identifiers, so the holdings add up to the total', async () => {
    const h = await createHarness();
    const security = (isin: string | null) => ({
      name: isin ? 'World Index ETF' : null,
      tickerSymbol: isin ? 'WIDX' : null,
      currency: 'USD',
      figi: null,
      cusp: null,
      isin,
    });
    const lot = (isin: string | null, quantity: number, value: number) => ({
      security: security(isin),
      quantity,
      price: value / quantity,
      value,
      costBasis: null,
      currency: 'USD',
      raw: null,
    });
    // Two lots of one fund (an aggregator without holding ids lists tax lots apart) and two rows
    // the aggregator could not identify.
    const lots = [
      lot('IE00B4L5Y983', 10, 1000),
      lot('IE00B4L5Y983', 20, 2000),
      lot(null, 1, 50),
      lot(null, 2, 60),
    ];
    const answer = (holdings: unknown[], totalValue: number) =>
      h.sandbox.faults.add({
        kind: 'status',
        status: 200,
        body: { holdings, totalValue, currency: 'USD' },
        match: { endpoint: 'holdings', accountId: '5001' },
      });
    const held = async () =>
      (await h.storage.listHoldings('c1', '5001')).map((x) => x.value).sort((a, b) => Number(a) - Number(b));

    const fault = answer(lots, 3110);
    await h.engine.sync('c1');
    expect(await held()).toEqual(['50', '60', '1000', '2000']);
    // The same answer again changes nothing: the keys do not move.
    const seqBefore = await h.storage.lastSeq();
    await h.engine.sync('c1');
    const feed = await h.storage.readChanges({ after: seqBefore, limit: 100 });
    expect(feed.filter((e) => e.entity === 'holding')).toEqual([]);
    // The second lot is sold: that lot alone goes.
    fault.remove();
    answer([lots[0], lots[2], lots[3]], 1110);
    await h.engine.sync('c1');
    expect(await held()).toEqual(['50', '60', '1000']);
  });

  it('asks again about holdings the provider said it has none of, but only after holdingsRecheckDays', async () => {
    const h = await createHarness({ engine: { holdingsRecheckDays: 30 } });
    await h.engine.sync('c1');
    const asked = () => h.sandbox.requests.filter((r) => r.path.endsWith('/5002/holdings')).length;
    expect(asked()).toBe(1);
    h.sandbox.advanceDays(29);
    await h.engine.sync('c1');
    expect(asked()).toBe(1);
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    expect(asked()).toBe(2);
  });
});
