import type { ProviderLogger } from '@finsync/provider';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** Where a logger's text goes; `process.stderr` unless a test says otherwise. */
export type LogSink = (text: string) => void;

/** Lines not yet written, of every logger, written when the process exits however it exits. */
const unwritten = new Set<() => void>();
let exitHooked = false;

/**
 * One JSON object per line on stderr — `{"time","level","msg",…fields}` — so a log collector can
 * read every field. Fields never hold keys or bodies (the libraries and the access log guarantee it).
 *
 * `debug` and `info` lines (the access log's) are written together once per turn of the event loop:
 * a write to stderr is a system call that blocks the thread, and 50 PATCHes answered in one turn
 * made 50 of them (a quarter of the requests a second at 50 connections, docs/benchmarks.md). A
 * `warn` or `error` line is written at once, after any lines before it, and the lines of the turn are
 * written on exit; a process killed outright loses at most one turn's access lines.
 */
export function consoleLogger(minimum: LogLevel = 'info', sink?: LogSink): ProviderLogger {
  const write: LogSink = sink ?? ((text) => process.stderr.write(text));
  const threshold = LEVELS.indexOf(minimum);
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  unwritten.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const pendingLines of unwritten) pendingLines();
    });
  }
  const logger: ProviderLogger = {};
  for (const [index, level] of LEVELS.entries()) {
    if (index < threshold) continue;
    const soon = level === 'debug' || level === 'info';
    logger[level] = (message, fields) => {
      pending.push(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
      if (!soon) return flush();
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    };
  }
  return logger;
}

export function isLogLevel(value: string | undefined): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value ?? '');
}
