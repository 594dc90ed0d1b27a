/**
 * The JSON request path both clients share once ky has been set up: send, read the body, turn a
 * failure without an answer into the client's error, log the outcome, parse the JSON. What counts
 * as an error status and what is retried stays with each client (the `fetch` it hands ky, inside
 * `send`).
 */
import { chunksText } from './body-text.js';
import type { RequestErrorContext } from './error-base.js';
import { logTo, type ClientLogger } from './logger.js';
import { excerpt } from './redact.js';
import { toTransportError, type TransportErrorClasses } from './transport-errors.js';

export interface BodyIssue {
  path: string;
  message: string;
}

export interface JsonExchange<E extends Error> {
  /** `provider` or `service`: how log lines and messages name the other side. */
  peer: string;
  method: string;
  /** Path and query, relative to the base URL, as errors and log lines show it. */
  path: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  apiKey: string;
  logger: ClientLogger | undefined;
  errors: TransportErrorClasses<E> & {
    /** A 2xx answer whose body is not JSON. */
    invalidResponse: new (
      message: string,
      context: RequestErrorContext & { status: number; issues: BodyIssue[] },
    ) => E;
  };
  /** Response headers that carry a request id, the first present wins. */
  requestIdHeaders: readonly string[];
  /** Sends the request, retries included, and resolves with the answer to hand back. */
  send: () => Promise<Response>;
  /** Retries made so far; when given, errors and the log line report it. */
  retries?: (() => number) | undefined;
  /** The most bytes a body read whole may have; past it the read stops with `invalidResponse`. */
  maxBodyBytes: number;
  /**
   * For a body read whole (`receiveJson`, `exchangeJson`): a 2xx answer whose body stopped arriving
   * or was cut off is asked for again when this gives the delay before sending it again; `undefined`
   * throws the failure. Only for requests that may be repeated; the client counts the retries.
   */
  retryBody?: (() => number | undefined) | undefined;
}

export interface JsonAnswer {
  body: unknown;
  status: number;
  requestId: string | undefined;
}

export async function exchangeJson<E extends Error>(exchange: JsonExchange<E>): Promise<JsonAnswer> {
  return (await receiveJson(exchange)).parse();
}

/** An answer whose body has been read in full, its JSON not parsed yet. */
export interface ReceivedJson {
  status: number;
  requestId: string | undefined;
  /** Parses the body, once; throws the client's `invalidResponse` error when it is not JSON. */
  parse(): JsonAnswer;
}

/**
 * `exchangeJson` in two steps: resolves once the body is in, and leaves the parse to the caller, so
 * that a caller can send its next request before spending CPU on this answer.
 */
export async function receiveJson<E extends Error>(exchange: JsonExchange<E>): Promise<ReceivedJson> {
  const { method, path, peer } = exchange;
  const context = { method, path };
  let answer: StreamAnswer;
  let held: string | undefined;
  for (;;) {
    answer = await exchangeStream(exchange);
    try {
      held = await wholeBody(answer, exchange);
      break;
    } catch (error) {
      // ky's retries end with the headers; a body cut off after them is the client's to repeat.
      const delay = cutOff(error, exchange) ? exchange.retryBody?.() : undefined;
      if (delay === undefined) throw error;
      logTo(exchange.logger, 'warn', `${peer} answer's body was cut off; retrying`, {
        ...context,
        error: (error as Error).name,
        ...retriesOf(exchange),
        delayMs: delay,
      });
      await pause(delay, exchange);
    }
  }
  const { status, requestId } = answer;
  return {
    status,
    requestId,
    parse() {
      // The text is let go as it is parsed: whoever keeps this answer does not keep its text.
      const text = held;
      if (text === undefined) throw new Error(`${peer} answer for ${method} ${path} was already parsed`);
      held = undefined;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new exchange.errors.invalidResponse(
          `${peer} sent a body that is not JSON for ${method} ${path}`,
          {
            ...context,
            status,
            issues: [
              { path: '', message: `not JSON: ${JSON.stringify(excerpt(text, exchange.apiKey, 80))}` },
            ],
          },
        );
      }
      return { body, status, requestId };
    },
  };
}

export interface StreamAnswer {
  status: number;
  requestId: string | undefined;
  /** The answer, its body not read yet. */
  response: Response;
  /** The body's bytes as they arrive; a failure while reading is the client's transport error. */
  chunks(): AsyncIterable<Uint8Array>;
}

/**
 * Sends the request and hands back the answer before its body is read, for bodies too large to
 * hold at once. The log line is written when the headers arrive.
 */
export async function exchangeStream<E extends Error>(exchange: JsonExchange<E>): Promise<StreamAnswer> {
  const { method, path, peer } = exchange;
  const context = { method, path };
  const started = performance.now();
  let response: Response;
  try {
    response = await exchange.send();
  } catch (error) {
    throw toTransportError(error, { ...context, ...retriesOf(exchange) }, exchange);
  }
  let requestId: string | undefined;
  for (const name of exchange.requestIdHeaders) requestId ??= response.headers.get(name) ?? undefined;
  logTo(exchange.logger, 'debug', `${peer} request done`, {
    ...context,
    status: response.status,
    ...retriesOf(exchange),
    durationMs: Math.round(performance.now() - started),
  });
  const body = response.body;
  return {
    status: response.status,
    requestId,
    response,
    async *chunks() {
      if (!body) return;
      const reader = body.getReader();
      try {
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            // `timeoutMs` without a byte: a body that stops arriving fails instead of hanging.
            next = await withinBodyTime(reader.read(), exchange, () => reader.cancel());
          } catch (error) {
            throw toTransportError(error, { ...context, ...retriesOf(exchange) }, exchange);
          }
          if (next.done) return;
          yield next.value;
        }
      } finally {
        // A reader that stops early (an error, a consumer that breaks off) lets the connection go.
        // Not awaited: a body whose source never answers the cancel must not hang the caller.
        reader.cancel().catch(() => undefined);
      }
    },
  };
}

/**
 * The whole body as text, read chunk by chunk: each chunk within `timeoutMs` of the one before (a body
 * that keeps arriving is read however long it takes), the caller's signal heard between chunks, and
 * at most `maxBodyBytes` (past it the rest is let go, and the read fails).
 */
async function wholeBody<E extends Error>(answer: StreamAnswer, exchange: JsonExchange<E>): Promise<string> {
  const { maxBodyBytes, method, path, peer } = exchange;
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of answer.chunks()) {
    bytes += chunk.byteLength;
    if (bytes > maxBodyBytes)
      throw new exchange.errors.invalidResponse(
        `${peer} sent a body of more than ${maxBodyBytes} bytes for ${method} ${path}`,
        {
          method,
          path,
          ...retriesOf(exchange),
          status: answer.status,
          issues: [{ path: '', message: `more than ${maxBodyBytes} bytes` }],
        },
      );
    parts.push(chunk);
  }
  return chunksText(parts, bytes);
}

/** A body that stopped arriving or whose connection broke, not one the caller aborted. */
function cutOff<E extends Error>(error: unknown, exchange: JsonExchange<E>): boolean {
  if (exchange.signal?.aborted) return false;
  return error instanceof exchange.errors.timeout || error instanceof exchange.errors.connection;
}

/** Waits `ms` before a repeat; the caller's abort ends the wait with the client's abort error. */
async function pause<E extends Error>(ms: number, exchange: JsonExchange<E>): Promise<void> {
  const { signal, method, path } = exchange;
  await new Promise<void>((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(
        new exchange.errors.aborted(`${method} ${path} aborted`, {
          method,
          path,
          ...retriesOf(exchange),
          cause: signal!.reason,
        }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * `reading`, or the client's timeout error once `timeoutMs` has passed without it settling, or the
 * signal's reason once the caller aborts (the body is then let go with `cancel`). ky's own timeout
 * and signal end when the headers arrive; a body that stops arriving after them would otherwise hang
 * its caller for good, and a fetch whose body is not tied to the signal (a custom fetch, msw) would
 * go on reading after an abort.
 */
async function withinBodyTime<T, E extends Error>(
  reading: Promise<T>,
  exchange: JsonExchange<E>,
  cancel: () => Promise<void> | undefined,
): Promise<T> {
  const { signal } = exchange;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    if (signal) {
      // Rejected before the cancel: a cancel ends a pending read as done at once, which the race
      // would take for the end of the body.
      onAbort = () => {
        reject(signal.reason);
        cancel()?.catch(() => undefined);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
    }
    timer = setTimeout(() => {
      reject(
        new exchange.errors.timeout(
          `${exchange.method} ${exchange.path} got no more of its body within ${exchange.timeoutMs} ms`,
          {
            method: exchange.method,
            path: exchange.path,
            ...retriesOf(exchange),
            timeoutMs: exchange.timeoutMs,
          },
        ),
      );
      cancel()?.catch(() => undefined);
    }, exchange.timeoutMs);
  });
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal!.removeEventListener('abort', onAbort);
  }
}

function retriesOf(exchange: { retries?: (() => number) | undefined }): { retries?: number } {
  return exchange.retries ? { retries: exchange.retries() } : {};
}

/** `/accounts/4711?x=1` for a request URL below `basePath` (the base URL's path, no trailing slash). */
export function relativePath(basePath: string, url: string): string {
  const target = new URL(url);
  const path = target.pathname.startsWith(basePath)
    ? target.pathname.slice(basePath.length)
    : target.pathname;
  return `${path}${target.search}`;
}

/** The parts of an error body both APIs use: `{ error, message, errors, details }`, each optional. */
export interface ErrorBodyParts {
  code?: string;
  message?: string;
  errors?: string[];
  details?: Record<string, unknown>;
}

/** Reads what it can of an error body; anything else (not JSON, other shapes) gives `{}`. */
export function readErrorBody(text: string): ErrorBodyParts {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown> | null;
    if (parsed === null || typeof parsed !== 'object') return {};
    const parts: ErrorBodyParts = {};
    if (typeof parsed.error === 'string') parts.code = parsed.error;
    if (typeof parsed.message === 'string') parts.message = parsed.message;
    if (Array.isArray(parsed.errors)) {
      parts.errors = parsed.errors.filter((e): e is string => typeof e === 'string');
    }
    if (parsed.details !== null && typeof parsed.details === 'object' && !Array.isArray(parsed.details)) {
      parts.details = parsed.details as Record<string, unknown>;
    }
    return parts;
  } catch {
    return {};
  }
}
