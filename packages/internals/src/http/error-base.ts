/**
 * What every client error is built from. Each client declares its own error classes (so
 * `instanceof ProviderError` and `instanceof ServiceError` mean "thrown by that client"); their
 * base classes call these helpers so that what an error keeps, and what it serializes, is decided
 * once.
 *
 * An error keeps the method, the path (with query) and the retry count, never the request, its
 * headers or the API key, so it is safe to log and to serialize.
 */
import { safeCause } from './redact.js';

/** The request an error is about; each client's public `ErrorContext` has this shape. */
export interface RequestErrorContext {
  method?: string | undefined;
  path?: string | undefined;
  retries?: number | undefined;
  cause?: unknown;
}

/** The fields every client error has. */
export interface RequestErrorFields {
  readonly name: string;
  readonly message: string;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly retries: number;
}

/** The second argument of `super(message, …)`: the cause, when there is one that cannot carry the key. */
export function errorOptions(context: RequestErrorContext): ErrorOptions | undefined {
  const cause = context.cause === undefined ? undefined : safeCause(context.cause);
  return cause === undefined ? undefined : { cause };
}

/** The fields of a base error's `toJSON`, in this order; subclasses add theirs after. No cause, no stack. */
export function requestErrorJSON(error: RequestErrorFields): Record<string, unknown> {
  return {
    name: error.name,
    message: error.message,
    method: error.method,
    path: error.path,
    retries: error.retries,
  };
}
