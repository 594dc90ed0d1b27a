/**
 * Writing to the logger a caller gave a client. Each client declares its own public logger type
 * (`ProviderLogger`, `ServiceLogger`) with this shape.
 */

export interface ClientLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Calls `logger[level]` if the logger has that method; a logger that throws is ignored. */
export function logTo(
  logger: ClientLogger | undefined,
  level: LogLevel,
  message: string,
  fields?: Record<string, unknown>,
): void {
  try {
    logger?.[level]?.(message, fields);
  } catch {
    // A broken logger must not break a request.
  }
}

/**
 * The caller's logger with every method it has wrapped as `logTo` calls it: for code that logs in
 * many places (the sync engine), where a logger that throws must break nothing either.
 */
export function guardedLogger<L extends ClientLogger>(logger: L | undefined): ClientLogger | undefined {
  if (!logger) return undefined;
  const guarded: ClientLogger = {};
  for (const level of ['debug', 'info', 'warn', 'error'] as const)
    if (typeof logger[level] === 'function')
      guarded[level] = (message, fields) => logTo(logger, level, message, fields);
  return guarded;
}
