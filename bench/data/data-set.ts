/**
 * The data set every measurement reads: the sandbox provider with ten busy current accounts and five
 * years of history, at a fixed seed and "today", and the two ways the engine is asked for it.
 */
import type { SandboxAccountSpec, SandboxOptions } from '@finsync/provider/sandbox';

/** The sandbox's "today" at the start of every run; the incremental-day step moves it forward. */
export const TODAY = '2026-06-30';
/** Years of history (five), so the data looks like a real account's and windowed walks are long. */
export const HISTORY_DAYS = 5 * 365;
export const SEED = 1;
export const API_KEY = 'sandbox-key';
export const CONNECTION_ID = 'bench';

/**
 * How the engine is asked for a first sync:
 * - `whole`: no `startDate` (the engine's default): one request per account for its whole history;
 * - `windowed`: a `startDate` before the oldest data, so the history is walked in 90-day windows.
 */
export type SyncMode = 'whole' | 'windowed';
export const MODES: readonly SyncMode[] = ['whole', 'windowed'];

/** A day before the sandbox's oldest row: what `windowed` passes as `startDate`. */
export function windowedStartDate(): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - (HISTORY_DAYS + 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
}

/**
 * The sandbox options for a data set of about `rows` transactions. With `wireVariants`, rows come in
 * the shapes off the documented one the client reads by its full schema (the sandbox's option).
 */
export function sandboxOptions(rows: number, wireVariants = false): SandboxOptions {
  return {
    seed: SEED,
    today: TODAY,
    historyDays: HISTORY_DAYS,
    accounts: heavyAccounts(rows, HISTORY_DAYS).accounts,
    ...(wireVariants ? { wireVariants } : {}),
  };
}

/** Ten busy current accounts, sized so the whole history holds about `rows` transactions. */
export function heavyAccounts(
  rows: number,
  historyDays: number,
): { accounts: SandboxAccountSpec[]; transactionsPerDay: number } {
  const count = 10;
  const perDay = rows / (count * historyDays);
  const accounts: SandboxAccountSpec[] = Array.from({ length: count }, (_, i) => ({
    id: 9000 + i,
    name: `Busy Account ${i + 1}`,
    institutionName: 'Bench Bank',
    provider: 'gocardless',
    currency: i % 3 === 0 ? 'EUR' : 'GBP',
    profile: 'current',
    transactionsPerDay: perDay,
  }));
  return { accounts, transactionsPerDay: perDay };
}
