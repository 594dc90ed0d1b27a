import type { ProviderLogger } from '@finsync/provider';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** Where a logger's text goes; `process.stderr` unless a test says otherwise. */
export type LogSink = (text: string) => void;

/** Lines not yet written, of every logger, written when the process exits however it exits. */
const unwritten = new Set<() => void>();
let exitHooked = false;

/** How long an access line may wait for others, and how much text, before they are written together. */
const FLUSH_AFTER_MS = 10;
const FLUSH_AT_CHARS = 64 * 1024;

/** Writes every logger's waiting lines now: before a line written to stderr directly, so they stay in order. */
export function flushLogs(): void {
  for (const pendingLines of unwritten) pendingLines();
}

/**
 * One JSON object per line on stderr — `{"time","level","msg",…fields}` — so a log collector can
 * read every field. Fields never hold keys or bodies (the libraries and the access log guarantee it).
 *
 * `debug` and `info` lines (the access log's) are written together, at most 10 ms or 64 KiB after
 * the first of them: a write to stderr is a system call that blocks the thread, and one a request
 * cost a quarter of the requests a second at 50 connections and about 5 % of a lone connection's
 * time (docs/benchmarks.md). A `warn` or `error` line is written at once, after any lines before it,
 * and waiting lines are written on exit; a process killed outright loses at most 10 ms of access lines.
 */
export function consoleLogger(minimum: LogLevel = 'info', sink?: LogSink): ProviderLogger {
  const write: LogSink = sink ?? ((text) => process.stderr.write(text));
  const threshold = LEVELS.indexOf(minimum);
  let pending: string[] = [];
  let pendingChars = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingChars = 0;
    write(text);
  };
  unwritten.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', flushLogs);
  }
  const logger: ProviderLogger = {};
  for (const [index, level] of LEVELS.entries()) {
    if (index < threshold) continue;
    const soon = level === 'debug' || level === 'info';
    logger[level] = (message, fields) => {
      const line = `${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`;
      pending.push(line);
      pendingChars += line.length;
      if (!soon || pendingChars >= FLUSH_AT_CHARS) return flush();
      // Unref'd: waiting lines never keep a process alive (they are written on exit).
      timer ??= setTimeout(flush, FLUSH_AFTER_MS).unref();
    };
  }
  return logger;
}

export function isLogLevel(value: string | undefined): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value ?? '');
}
