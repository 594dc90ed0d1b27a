/**
 * Turning whatever a request threw before an answer came back (an abort, a timeout, a network
 * failure) into the client's own error classes, passed in by the client.
 */
import { TimeoutError as KyTimeoutError } from 'ky';
import type { RequestErrorContext } from './error-base.js';
import { quotesSecret, redact } from './redact.js';

/** The client's classes for failures without an answer. */
export interface TransportErrorClasses<E extends Error> {
  /** The client's base error: an error of this class was already judged and passes through. */
  base: abstract new (...args: never[]) => E;
  /** The caller's AbortSignal fired. */
  aborted: new (message: string, context: RequestErrorContext) => E;
  /** No answer within the timeout. */
  timeout: new (message: string, context: RequestErrorContext & { timeoutMs: number }) => E;
  /** No answer at all (DNS, reset, refused …). */
  connection: new (message: string, context: RequestErrorContext) => E;
}

export interface TransportSettings<E extends Error> {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  /** Masked wherever it appears in a message. */
  apiKey: string;
  errors: TransportErrorClasses<E>;
}

/** The client error for `error`, thrown while sending `method path`. */
export function toTransportError<E extends Error>(
  error: unknown,
  context: { method: string; path: string; retries?: number | undefined },
  settings: TransportSettings<E>,
): E {
  const { errors } = settings;
  if (error instanceof errors.base) return error;
  const what = `${context.method} ${context.path}`;
  if (settings.signal?.aborted) {
    return new errors.aborted(`${what} aborted`, { ...context, cause: settings.signal.reason });
  }
  if (error instanceof KyTimeoutError) {
    return new errors.timeout(`${what} got no response within ${settings.timeoutMs} ms`, {
      ...context,
      timeoutMs: settings.timeoutMs,
    });
  }
  // fetch reports the real reason (ECONNREFUSED, ENOTFOUND …) as the cause of a bare "fetch failed".
  const reason =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new errors.connection(`${what} failed to connect: ${redact(reason, settings.apiKey)}`, {
    ...context,
    // The error base drops a cause that could carry the request (and so the key); one that quotes
    // the key anywhere down its chain (fetch refusing it as a header value; a custom fetch's own
    // error wrapping it) is dropped here.
    cause: error instanceof Error && !quotesSecret(error, settings.apiKey) ? error : undefined,
  });
}
