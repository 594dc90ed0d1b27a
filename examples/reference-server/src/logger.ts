import type { ProviderLogger } from '@finsync/provider';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/**
 * One JSON object per line on stderr — `{"time","level","msg",…fields}` — so a log collector can
 * read every field. Fields never hold keys or bodies (the libraries and the access log guarantee it).
 */
export function consoleLogger(minimum: LogLevel = 'info'): ProviderLogger {
  const threshold = LEVELS.indexOf(minimum);
  const logger: ProviderLogger = {};
  for (const [index, level] of LEVELS.entries()) {
    if (index < threshold) continue;
    logger[level] = (message, fields) =>
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`,
      );
  }
  return logger;
}

export function isLogLevel(value: string | undefined): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value ?? '');
}
