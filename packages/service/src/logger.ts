/**
 * The logger the client writes to. Any object with some of these methods works: `console`, or a
 * small adapter around pino or winston. Fields never contain headers, bodies or the API key.
 */
export interface ServiceLogger {
  /** Each request once done: method, path, status and duration. */
  debug?(message: string, fields?: Record<string, unknown>): void;
  /** Notable but normal events, such as a redirect followed within the service's origin. */
  info?(message: string, fields?: Record<string, unknown>): void;
  /** Retries, and a `currency` sent on update (which the service ignores). */
  warn?(message: string, fields?: Record<string, unknown>): void;
  /** Part of the shape so `console` and common loggers fit; the client writes nothing at this level today. */
  error?(message: string, fields?: Record<string, unknown>): void;
}
