import { AccountIdTooLongError, type ConnectionReport } from '@finsync/sync';
import { expect, it } from 'vitest';
import { reportJson, runLine, syncSummary } from '../src/summary.js';

const longId = `acc_${'7'.repeat(300)}`;
const skipped = new AccountIdTooLongError(longId, 256);
const report: ConnectionReport = {
  connectionId: 'sandbox',
  ok: true,
  outcome: 'success',
  status: 'active',
  startedAt: '2026-06-03T12:00:00.000Z',
  finishedAt: '2026-06-03T12:00:01.000Z',
  durationMs: 1_000,
  accounts: [],
  issues: [],
  skippedAccounts: [{ message: skipped.message, error: skipped }],
};

it('shows an account skipped for its id in the table, the run line and --json, never the whole id', () => {
  const shown = [
    syncSummary(report, [], 'finsync.db'),
    runLine(report),
    JSON.stringify(reportJson(report, 0, 'x')),
  ];
  for (const text of shown) {
    expect(text).toContain('has 304 characters, more than 256: skipped');
    expect(text).not.toContain(longId);
  }
  expect(shown[0]).toContain('skipped accounts (left alone on every run):');
  expect(reportJson(report, 0, 'x')).toMatchObject({
    skippedAccounts: [{ error: 'AccountIdTooLongError', message: skipped.message }],
  });
});
