import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderClientOptions } from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();
const directory = mkdtempSync(join(tmpdir(), 'finsync-amount-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** 60 rows of the documented shape, written as the provider writes them; row 47 (past `afterRows`, so checked on its text when spilled) has `amount`. */
function rows(amount: number): WireRow[] {
  return Array.from({ length: 60 }, (_, n) => ({
    id: `tx_${n}`,
    accountId: 4711,
    amount: n === 47 ? amount : -(n + 0.5),
    currency: 'GBP',
    date: `2026-05-${String(1 + (n % 28)).padStart(2, '0')}`,
    merchant: 'Shop',
    description: 'CARD PAYMENT',
    isPending: false,
  }));
}

/** What the client makes of the list: its rows' amounts, or the error's name and message. */
async function outcome(amount: number, options: Partial<ProviderClientOptions>, from?: string) {
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, () => {
      // A row a chunk, as a long answer arrives: the rows after the first `afterRows` go to disk.
      const texts = rows(amount).map((row) => JSON.stringify(row));
      const parts = ['{"transactions":[', ...texts.map((t, i) => (i === 0 ? t : `,${t}`)), '],"total":60}'];
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const part = parts.shift();
          if (part === undefined) controller.close();
          else controller.enqueue(encoder.encode(part));
        },
      });
      return new HttpResponse(body, { headers: { 'content-type': 'application/json' } });
    }),
  );
  const client = new ProviderClient({ apiKey: KEY, rateLimit: false, ...options });
  const list = client.listTransactions(4711, from ? { from, to: '2026-05-31' } : { to: '2026-05-31' });
  try {
    const read = await list.toArray({ limit: 100 });
    return { amounts: read.map((t) => t.amount).sort() };
  } catch (error) {
    return {
      error: (error as Error).name,
      message: (error as Error).message.replace(/GET \S+:/, 'GET (the URL):'),
    };
  }
}

describe('an amount of the documented form but past the money bounds', () => {
  // The text of both is a plain JSON number; neither fits a decimal of 15 integer and 18 fraction digits.
  it.each([
    ['with 20 decimals', -0.00003974552074365297],
    ['with 16 integer digits', 1234567890123456],
  ])(
    '%s is read alike held in memory and spilled to disk, never as a row without an amount',
    async (_, amount) => {
      const held = await outcome(amount, { spill: false });
      const spilled = await outcome(amount, { spill: { afterRows: 10, pageRows: 20, directory } });
      const windowed = await outcome(amount, { spill: false }, '2026-05-01');
      expect(spilled).toEqual(held);
      expect(windowed).toEqual(held);
      // Refused whole, as any answer with a row the schema refuses: no row reaches the caller.
      expect(held).toMatchObject({
        error: 'InvalidResponseError',
        message: expect.stringContaining('transactions[47].amount'),
      });
    },
  );
});
