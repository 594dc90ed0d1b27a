/**
 * The logger the client writes to. Any object with some of these methods works: `console`, or a
 * small adapter around pino or winston. Fields never contain headers, bodies or the API key.
 */
export interface ServiceLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}
