import type { ProviderLogger } from '@finsync/provider';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** One line per event on stderr: `level message {fields}`. Fields never hold keys (the libraries guarantee it). */
export function consoleLogger(minimum: (typeof LEVELS)[number] = 'info'): ProviderLogger {
  const threshold = LEVELS.indexOf(minimum);
  const logger: ProviderLogger = {};
  for (const [index, level] of LEVELS.entries()) {
    if (index < threshold) continue;
    logger[level] = (message, fields) =>
      process.stderr.write(
        `${new Date().toISOString()} ${level.padEnd(5)} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`,
      );
  }
  return logger;
}
