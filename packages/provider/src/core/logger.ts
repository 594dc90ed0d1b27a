/**
 * The logger the client writes to. Any object with some of these methods works: `console`, or a
 * small adapter around pino or winston. Fields never contain headers or the API key.
 */
export interface ProviderLogger {
  /** Each request: method, path, status and duration. */
  debug?(message: string, fields?: Record<string, unknown>): void;
  /** Notable but normal events, such as a redirect followed within the provider's host. */
  info?(message: string, fields?: Record<string, unknown>): void;
  /** Retries, and windows the provider answered short of its `total`. */
  warn?(message: string, fields?: Record<string, unknown>): void;
  /** Part of the shape so `console` and common loggers fit; the client writes nothing at this level today. */
  error?(message: string, fields?: Record<string, unknown>): void;
}
