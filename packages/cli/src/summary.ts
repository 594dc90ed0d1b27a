/** The tables and the small formatters `sync`, `watch` and `status` share. */
import Table from 'cli-table3';
import type {
  BalanceReconciliation,
  ConnectionReport,
  MirrorAccount,
  MirrorBalance,
  SyncIssue,
} from '@finsync/sync';

/** Plain tables: no colour codes, so the output reads the same in a terminal, a pipe and a log file. */
export function table(head: string[], numeric: number[] = []): Table.Table {
  return new Table({
    head,
    style: { head: [], border: [], compact: true },
    colAligns: head.map((_, i) => (numeric.includes(i) ? 'right' : 'left')),
  });
}

export function formatBalance(balance: MirrorBalance | null | undefined): string {
  if (!balance) return '—';
  return balance.currency ? `${balance.amount} ${balance.currency}` : balance.amount;
}

/** The balance check in words (see the engine's README, "Balances that add up"). */
export function formatCheck(check: BalanceReconciliation | null | undefined): string {
  if (!check) return 'not checked';
  const basis = check.basis === 'posted-and-pending' ? ' (with pending)' : '';
  if (check.status === 'mismatch') return `mismatch ${check.difference ?? '?'} since ${check.since ?? '?'}`;
  return `${check.status}${basis}`;
}

/** `2026-11-23 21:10`, in the machine's time zone: what a person compares with their clock. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
    .toISOString()
    .slice(0, 16)
    .replace('T', ' ');
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 60) return 'just now';
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)} h ago`;
  return `${Math.floor(seconds / 86_400)} days ago`;
}

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

export function describeIssue(issue: SyncIssue): string {
  const where = issue.accountId ? `${issue.stage}, account ${issue.accountId}` : issue.stage;
  const kind = issue.error.name && issue.error.name !== 'Error' ? `${issue.error.name}: ` : '';
  return `${where}: ${kind}${issue.message}`;
}

function sum(report: ConnectionReport, field: 'fetched' | 'added' | 'modified' | 'removed'): number {
  return report.accounts.reduce((n, a) => n + a[field], 0);
}

/** One line per run, for `watch` and for logs. */
export function runLine(report: ConnectionReport): string {
  const counts =
    `${report.accounts.length} accounts, ${sum(report, 'fetched')} fetched, ` +
    `+${sum(report, 'added')} ~${sum(report, 'modified')} -${sum(report, 'removed')}`;
  const issues = report.issues.length === 0 ? '' : `; ${report.issues.map(describeIssue).join('; ')}`;
  const skipped = report.skippedAccounts.map((s) => `; skipped: ${s.message}`).join('');
  return `${report.finishedAt} ${report.connectionId}: ${report.outcome} (${formatDuration(report.durationMs)}), ${counts}${issues}${skipped}`;
}

/**
 * The table at the end of `sync`: per account what was fetched and changed, the balance now in the
 * mirror, this run's balance check, and the issues listed in full below it.
 */
export function syncSummary(report: ConnectionReport, mirror: MirrorAccount[], database: string): string {
  const byId = new Map(mirror.map((a) => [a.id, a]));
  const lines = [
    `connection ${report.connectionId}: ${report.outcome} in ${formatDuration(report.durationMs)}`,
    `database: ${database}`,
  ];
  if (report.accounts.length > 0) {
    const t = table(
      ['account', 'fetched', 'added', 'modified', 'removed', 'balance', 'balance check', 'issues'],
      [1, 2, 3, 4, 5],
    );
    for (const a of report.accounts) {
      const balance = formatBalance(byId.get(a.accountId)?.balance);
      t.push([
        `${a.accountId} ${a.name}`,
        a.fetched,
        a.added,
        a.modified,
        a.removed,
        // Not taken this run: its read failed, or the run stopped before storing it.
        a.balance === 'failed' ? `${balance} (kept: not updated)` : balance,
        formatCheck(a.reconciliation),
        a.issues.length === 0 ? '' : String(a.issues.length),
      ]);
    }
    t.push([
      'total',
      sum(report, 'fetched'),
      sum(report, 'added'),
      sum(report, 'modified'),
      sum(report, 'removed'),
      '',
      '',
      report.issues.length === 0 ? '' : String(report.issues.length),
    ]);
    lines.push(t.toString());
  }
  if (report.issues.length > 0) {
    lines.push('issues:');
    for (const issue of report.issues) lines.push(`  ${describeIssue(issue)}`);
  }
  if (report.skippedAccounts.length > 0) {
    lines.push('skipped accounts (left alone on every run):');
    for (const skipped of report.skippedAccounts) lines.push(`  ${skipped.message}`);
  }
  return lines.join('\n');
}

/** The report for `--json`: typed errors become their name and message (they hold no key). */
export function reportJson(report: ConnectionReport, exitCode: number, database: string): unknown {
  const issue = (i: SyncIssue) => ({
    stage: i.stage,
    accountId: i.accountId,
    error: i.error.name,
    message: i.message,
  });
  return {
    ...report,
    database,
    exitCode,
    accounts: report.accounts.map((a) => ({ ...a, issues: a.issues.map(issue) })),
    issues: report.issues.map(issue),
    skippedAccounts: report.skippedAccounts.map((s) => ({ error: s.error.name, message: s.message })),
  };
}
