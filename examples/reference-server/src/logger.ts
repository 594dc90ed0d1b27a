import type { ProviderLogger } from '@finsync/provider';
import { isoNow } from './clock.js';
import { PLAIN_TEXT } from './json-text.js';

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
      const line = logLine(level, message, fields);
      pending.push(line);
      pendingChars += line.length;
      if (!soon || pendingChars >= FLUSH_AT_CHARS) return flush();
      // Unref'd: waiting lines never keep a process alive (they are written on exit).
      timer ??= setTimeout(flush, FLUSH_AFTER_MS).unref();
    };
  }
  return logger;
}

/** A field's name written as it is: letters, digits and `_`, not a digit first (so never an array index). */
const PLAIN_NAME = /^[A-Za-z_]\w*$/;
/** The head's own names, and `toJSON`, which would make the whole object's text something else. */
const HEAD_AND_HOOKS = new Set(['time', 'level', 'msg', 'toJSON']);
/**
 * Names found plain and not the head's, so each is tested once: a logger's lines name the same few
 * fields again and again. Bounded, as a caller could name fields without end.
 */
const plainNames = new Set<string>();
const MAX_PLAIN_NAMES = 1_000;

/**
 * `{"time","level","msg",…fields}` and a newline, the text `JSON.stringify` gives that object. Plain
 * names with plain strings and finite numbers, which is what an access line holds, are written by
 * hand: spreading the fields into a new object and serializing it took half again as long, and the
 * line was about 9 % of a lone connection's PATCH in instructions (docs/benchmarks.md). Any other
 * field takes `JSON.stringify`, and the whole line does when a name is to be escaped or is one of the
 * head's own (the spread put its value in the head's place).
 */
function logLine(level: LogLevel, message: string, fields: Record<string, unknown> | undefined): string {
  const time = isoNow();
  let line = `{"time":"${time}","level":"${level}","msg":${JSON.stringify(message)}`;
  // `null` from a caller in plain JavaScript is no fields, as the spread took it.
  if (fields === undefined || fields === null) return `${line}}\n`;
  for (const name of Object.keys(fields)) {
    if (!plainNames.has(name)) {
      if (!PLAIN_NAME.test(name) || HEAD_AND_HOOKS.has(name))
        return `${JSON.stringify({ time, level, msg: message, ...fields })}\n`;
      if (plainNames.size >= MAX_PLAIN_NAMES) plainNames.clear();
      plainNames.add(name);
    }
    const value = fields[name];
    if (value === undefined) continue;
    if (typeof value === 'string' && PLAIN_TEXT.test(value)) line += `,"${name}":"${value}"`;
    else if (typeof value === 'number' && Number.isFinite(value)) line += `,"${name}":${value}`;
    else {
      // A function or a symbol has no JSON text (`undefined`): the field is left out, as by the spread.
      const text = JSON.stringify(value) as string | undefined;
      if (text !== undefined) line += `,"${name}":${text}`;
    }
  }
  return `${line}}\n`;
}

export function isLogLevel(value: string | undefined): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value ?? '');
}
