/**
 * Holdings of an account gone from the provider's list: positions held now, not history. A bank linked
 * again lists them under its new account, so kept they were counted twice, for ever. They go once the
 * provider has not answered for them for `holdingsRecheckDays`; an account missing from one list keeps them.
 */
import { ProviderClient } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, SyncEngine } from '../src/index.js';

const position = {
  security: { name: 'AAA', tickerSymbol: 'AAA', currency: 'USD' },
  quantity: 10,
  value: 100,
};

async function brokerage() {
  const now = { t: '2026-03-01T12:00:00Z' };
  const listed = { ids: [7], holdingsFail: false };
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const path = url.pathname.replace(/^.*\/api\/v1\//, '');
    if (path.endsWith('/holdings') && listed.holdingsFail)
      return new Response(JSON.stringify({ error: 'upstream' }), { status: 500 });
    const body =
      path === 'accounts'
        ? {
            accounts: listed.ids.map((id) => ({
              id,
              name: 'Brokerage',
              institution_name: 'B',
              status: 'ACTIVE',
            })),
            total: listed.ids.length,
          }
        : path.endsWith('/balance')
          ? { balance: { amount: 100, currency: 'USD' } }
          : path.endsWith('/holdings')
            ? { holdings: [position], totalValue: 100, currency: 'USD' }
            : { transactions: [], total: 0 };
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const storage = new MemoryStorage();
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date(now.t), today: () => now.t.slice(0, 10) },
  });
  await engine.addConnection({
    id: 'c1',
    client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch }),
  });
  return { engine, storage, now, listed };
}

describe('holdings of an account gone from the list', () => {
  it('stay while it may come back, and go once holdingsRecheckDays have passed without an answer', async () => {
    const { engine, storage, now, listed } = await brokerage();
    await engine.sync('c1');
    expect(await storage.listHoldings('c1', '7')).toHaveLength(1);
    // The bank is linked again: the same position under account 8.
    listed.ids = [8];
    now.t = '2026-03-02T12:00:00Z';
    await engine.sync('c1');
    expect(await storage.listHoldings('c1', '7')).toHaveLength(1);
    now.t = '2026-04-01T12:00:00Z';
    const report = await engine.sync('c1');
    expect(report.ok).toBe(true);
    expect(await storage.listHoldings('c1', '7')).toEqual([]);
    expect(await storage.listHoldings('c1', '8')).toHaveLength(1);
    // The feed says so: an app's portfolio no longer counts the position twice.
    const removed = (await engine.readChanges({ limit: 1_000 })).filter(
      (e) => e.entity === 'holding' && e.op === 'removed' && e.accountId === '7',
    );
    expect(removed).toHaveLength(1);
  });

  it('an account missing from one list and back in the next keeps its holdings', async () => {
    const { engine, storage, now, listed } = await brokerage();
    await engine.sync('c1');
    listed.ids = [9];
    now.t = '2026-03-02T12:00:00Z';
    await engine.sync('c1');
    listed.ids = [7, 9];
    now.t = '2026-03-03T12:00:00Z';
    await engine.sync('c1');
    expect(await storage.listHoldings('c1', '7')).toHaveLength(1);
    const removed = (await engine.readChanges({ limit: 1_000 })).filter(
      (e) => e.entity === 'holding' && e.op === 'removed',
    );
    expect(removed).toEqual([]);
  });

  it('counts from when the account was last read, not from its last holdings answer', async () => {
    const { engine, storage, now, listed } = await brokerage();
    await engine.sync('c1');
    // Five weeks of failed holdings reads while the account is read every day: the holdings are kept.
    listed.holdingsFail = true;
    for (const day of ['2026-03-10', '2026-03-20', '2026-04-01', '2026-04-05']) {
      now.t = `${day}T12:00:00Z`;
      await engine.sync('c1');
    }
    expect(await storage.listHoldings('c1', '7')).toHaveLength(1);
    // Missing from one list, then back: it was read days ago, so its holdings stay.
    listed.ids = [9];
    now.t = '2026-04-06T12:00:00Z';
    await engine.sync('c1');
    expect(await storage.listHoldings('c1', '7')).toHaveLength(1);
  });
});
