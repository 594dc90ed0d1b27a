import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderClientOptions } from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();
const directory = mkdtempSync(join(tmpdir(), 'finsync-nul-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** 60 rows of the documented shape; one has NULs in its id, merchant and description. */
function rows(): WireRow[] {
  return Array.from({ length: 60 }, (_, n) => ({
    id: n === 7 ? 'tx_\u00007' : `tx_${n}`,
    accountId: 4711,
    amount: -(n + 0.5),
    currency: 'GBP',
    date: `2026-05-${String(1 + (n % 28)).padStart(2, '0')}`,
    merchant: n === 7 ? 'ACME\u0000 LTD' : 'Shop',
    description: n === 7 ? '\u0000CARD PAYMENT' : 'CARD PAYMENT',
    isPending: false,
  }));
}

async function read(options: Partial<ProviderClientOptions>, from?: string) {
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, () =>
      HttpResponse.json({ transactions: rows(), total: 60 }),
    ),
  );
  const client = new ProviderClient({ apiKey: KEY, rateLimit: false, ...options });
  const list = client.listTransactions(4711, from ? { from, to: '2026-05-31' } : { to: '2026-05-31' });
  return (await list.toArray({ limit: 100 })).find((t) => t.amount === '-7.5');
}

describe('a NUL in provider text', () => {
  it.each([
    ['a window', { spill: false as const }, '2026-05-01'],
    ['a whole history held in memory', { spill: false as const }, undefined],
    ['a whole history spilled to disk', { spill: { afterRows: 10, pageRows: 20, directory } }, undefined],
  ])('is read as U+FFFD in %s, as every store can hold it', async (_, options, from) => {
    expect(await read(options, from)).toMatchObject({
      id: 'tx_\uFFFD7',
      merchant: 'ACME\uFFFD LTD',
      description: '\uFFFDCARD PAYMENT',
    });
  });
});
