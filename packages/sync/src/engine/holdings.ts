/** The holdings phase of a run: the account's holdings mirrored as the provider lists them. */
import type { HoldingsResult } from '@finsync/provider';
import { EmptyHoldingsError, HoldingsNotFoundError } from '../errors.js';
import type { HoldingChange } from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';
import { holdingRecords } from './holding-lots.js';
import { sameRecord } from './keys.js';
import type { AccountReport } from './report.js';

export interface HoldingsOutcome {
  result: AccountReport['holdings'];
  /** What mirrors the provider's answer: committed by the account's closing write (run.ts). */
  changes: HoldingChange[];
}

/** Diffs the provider's answer (asked for with the transactions: account-turn.ts) with the store. */
export async function syncHoldings(
  ctx: RunContext,
  accountId: string,
  answer: Promise<HoldingsResult>,
  /** When the provider last answered for the holdings (the account's `holdingsCheckedAt`). */
  lastAnswered: string | null,
): Promise<HoldingsOutcome> {
  const result = await answer;
  const stored = new Map(
    (await ctx.storage.listHoldings(ctx.connectionId, accountId)).map((h) => [h.key, h]),
  );
  // A 404 where holdings are mirrored is taken for a passing failure (thrown: the run reports it, and
  // keeps the holdings and the account's support as they were) for `holdingsRecheckDays` after the
  // last answer; past that, the provider means it: the account has none to give.
  if (!result.supported && result.status === 404 && stored.size > 0 && recentlyAnswered(ctx, lastAnswered))
    throw new HoldingsNotFoundError(accountId, stored.size);
  // No row beside a total that says there is something: the answer contradicts itself, and taking it
  // removed every mirrored holding with the run a success. A list that is empty with no total (or a
  // total of 0) is believed: the account holds nothing any more. As a 404, only for
  // `holdingsRecheckDays` after the last answer taken: past that it is believed too (a total that
  // counts cash, say, beside positions all sold).
  if (
    result.supported &&
    result.holdings.length === 0 &&
    stored.size > 0 &&
    /[1-9]/.test(result.totalValue ?? '') &&
    recentlyAnswered(ctx, lastAnswered)
  )
    throw new EmptyHoldingsError(accountId, stored.size, result.totalValue!);
  const changes: HoldingChange[] = [];
  const seen = new Set<string>();
  if (result.supported) {
    for (const record of holdingRecords(ctx.connectionId, accountId, result.holdings, stored)) {
      seen.add(record.key);
      const previous = stored.get(record.key);
      if (!previous) changes.push(makeChange('holding', 'added', record));
      else if (!sameRecord(previous, record)) changes.push(makeChange('holding', 'modified', record));
    }
  }
  for (const previous of stored.values()) {
    if (!seen.has(previous.key)) changes.push(makeChange('holding', 'removed', previous));
  }
  return {
    result: !result.supported ? 'unsupported' : changes.length > 0 ? 'updated' : 'unchanged',
    changes,
  };
}

function recentlyAnswered(ctx: RunContext, lastAnswered: string | null): boolean {
  return lastAnswered !== null && !recheckDaysPassed(ctx, lastAnswered);
}

/** Whether `holdingsRecheckDays` have passed since the provider answered for the holdings at `checkedAt`. */
export function recheckDaysPassed(ctx: RunContext, checkedAt: string): boolean {
  return ctx.clock.now().getTime() - Date.parse(checkedAt) >= ctx.tuning.holdingsRecheckDays * 86_400_000;
}
