import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import { call } from './helpers.js';

describe('the canonical transaction JSON (no wire variants)', () => {
  it('is byte for byte what JSON.stringify writes for the documented members in their order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
        const provider = new SandboxProvider({ seed, historyDays: 120 });
        const accounts = (await call(provider, '/accounts')).json.accounts as Array<{ id: number }>;
        let rows = 0;
        for (const account of accounts) {
          const { text } = await call(provider, `/accounts/${account.id}/transactions?include_pending=true`);
          const body = JSON.parse(text) as { transactions: Array<Record<string, unknown>> };
          for (const row of body.transactions) {
            const written = JSON.stringify({
              id: row['id'],
              accountId: row['accountId'],
              amount: row['amount'],
              currency: row['currency'],
              date: row['date'],
              merchant: row['merchant'],
              description: row['description'],
              isPending: row['isPending'],
            });
            expect(text).toContain(written);
            rows++;
          }
        }
        // Pending rows (id null) and posted ones both come through.
        expect(rows).toBeGreaterThan(100);
      }),
      { numRuns: 5 },
    );
  });
});
