/** The holdings phase of a run: the account's holdings mirrored as the provider lists them. */
import type { HoldingsResult } from '@finsync/provider';
import type { HoldingChange } from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';
import { holdingRecord, sameRecord } from './keys.js';
import type { AccountReport } from './report.js';

/** Mirrors the provider's answer (asked for with the transactions: account-turn.ts) into the store. */
export async function syncHoldings(
  ctx: RunContext,
  accountId: string,
  answer: Promise<HoldingsResult>,
): Promise<AccountReport['holdings']> {
  const result = await answer;
  const stored = new Map(
    (await ctx.storage.listHoldings(ctx.connectionId, accountId)).map((h) => [h.key, h]),
  );
  const changes: HoldingChange[] = [];
  const seen = new Set<string>();
  if (result.supported) {
    for (const holding of result.holdings) {
      const record = holdingRecord(ctx.connectionId, accountId, holding);
      if (seen.has(record.key)) continue;
      seen.add(record.key);
      const previous = stored.get(record.key);
      if (!previous) changes.push(makeChange('holding', 'added', record));
      else if (!sameRecord(previous, record)) changes.push(makeChange('holding', 'modified', record));
    }
  }
  for (const previous of stored.values()) {
    if (!seen.has(previous.key)) changes.push(makeChange('holding', 'removed', previous));
  }
  if (changes.length > 0) await ctx.storage.apply({ changes });
  if (!result.supported) return 'unsupported';
  return changes.length > 0 ? 'updated' : 'unchanged';
}
