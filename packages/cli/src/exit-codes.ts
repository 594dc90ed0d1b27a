/**
 * Exit codes a script can branch on. They are part of the CLI's contract (README, `--help`): change
 * them only with a major version.
 */
import type { ConnectionReport, SyncIssue } from '@finsync/sync';

export const ExitCode = {
  ok: 0,
  /** A bug, or a failure nobody planned for (the database went away mid-run…). */
  unexpected: 1,
  /** Bad arguments or configuration: no key, a missing database, an unknown connection. */
  usage: 2,
  /** The provider refused the key (401/403): the connection needs a new key. */
  keyRefused: 3,
  /** The provider rate-limited the connection: it is paused; try again later. */
  rateLimited: 4,
  /** Some accounts' transactions synced; other accounts, or a balance or holdings, failed. */
  partial: 5,
  /** No account's transactions synced. */
  failed: 6,
  /** Stopped by Ctrl-C (128 + SIGINT), the shell convention. */
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit codes as `--help` and the README print them. */
export const EXIT_CODES_HELP = `Exit codes:
    0  success
    1  unexpected error
    2  usage or configuration error (no key, no database, bad option)
    3  the provider refused the key (the connection needs a new key)
    4  rate limited (the connection is paused; try again later)
    5  partial: some accounts (or a balance or holdings) failed, the others synced
    6  failed: no account's transactions synced
  130  interrupted (Ctrl-C)`;

/** An error the CLI expects and explains in one line, with the code to exit with. No stack is printed. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.usage,
  ) {
    super(message);
  }
}

// By name as well as by class: a second copy of @finsync/provider in node_modules (a version
// mismatch) would make `instanceof` fail silently and turn a refused key into a plain failure.
const isNamed = (error: Error, ...names: string[]) => names.includes(error.name);

export function isKeyRefusal(issue: SyncIssue): boolean {
  return isNamed(issue.error, 'AuthenticationError', 'PermissionDeniedError');
}

export function isRateLimit(issue: SyncIssue): boolean {
  return isNamed(issue.error, 'RateLimitError');
}

export function isAbort(issue: SyncIssue): boolean {
  return isNamed(issue.error, 'RequestAbortedError', 'SyncAbortedError', 'AbortError');
}

/**
 * One report, one code. A refused key or a rate limit wins over partial/failed, because it tells the
 * script what to do next (ask for a key; retry later) whatever else happened in the run.
 */
export function exitCodeForReport(report: ConnectionReport): ExitCodeValue {
  if (report.outcome === 'success') return ExitCode.ok;
  if (report.status === 'reauth_required' || report.issues.some(isKeyRefusal)) return ExitCode.keyRefused;
  if (report.status === 'paused' || report.issues.some(isRateLimit)) return ExitCode.rateLimited;
  if (report.outcome === 'partial') return ExitCode.partial;
  return ExitCode.failed;
}
