/**
 * One error hierarchy for everything the client throws.
 *
 * ProviderError
 * ├─ ProviderAPIError            the provider answered with an error status
 * │  ├─ AuthenticationError      401: key missing or not accepted
 * │  ├─ PermissionDeniedError    403: key invalid or revoked, or the subscription lapsed
 * │  ├─ NotFoundError            404: unknown account, or hidden by the key's Account Access
 * │  ├─ RateLimitError           429, or a 500 whose body carries the upstream rate-limit text
 * │  └─ ServerError              5xx
 * ├─ ConnectionError             no response at all (DNS, reset, refused …)
 * │  └─ TimeoutError             no response within `timeoutMs`
 * ├─ RequestAbortedError         the caller's AbortSignal fired; never retried
 * ├─ RedirectError               a redirect to a host outside the provider's host family
 * └─ InvalidResponseError        a 2xx body that does not match the wire format
 *
 * No error keeps the request, its headers or the API key: only the method, the path (with query)
 * and a short excerpt of the response body, so errors are safe to log and serialize. (What the base
 * keeps and serializes is shared with the service client: packages/internals/src/http/error-base.ts.)
 */
import { errorOptions, requestErrorJSON } from '@finsync/internals/http';

/**
 * What every error of the client records about the request that failed: the second argument of the
 * error constructors. It holds no headers and no API key.
 */
export interface ErrorContext {
  /** HTTP method of the failed request. */
  method?: string;
  /** Path and query of the failed request, relative to the base URL (e.g. `/accounts/4711/balance`). */
  path?: string;
  /** Number of retries made before giving up. */
  retries?: number;
  /** Kept as the error's `cause`, unless it could carry the request (and so the API key). */
  cause?: unknown;
}

/**
 * The base of everything `ProviderClient` throws once a call has started, so `instanceof ProviderError`
 * means "the provider call failed" (bad arguments are a plain `TypeError` or `RangeError` instead).
 * It keeps the method, the path with query and the retry count, never the request, its headers or the
 * API key, so it is safe to log and to serialize.
 */
export class ProviderError extends Error {
  /** The class name (`'ProviderError'`, `'RateLimitError'`, …), kept through bundling and serialization. */
  override readonly name: string = 'ProviderError';
  /** HTTP method of the failed request (`'GET'`), when the error is about one. */
  readonly method: string | undefined;
  /** Path and query of the failed request relative to the base URL, e.g. `/accounts/4711/balance`. */
  readonly path: string | undefined;
  /** Retries made before giving up; 0 when the first attempt's failure was thrown. */
  readonly retries: number;

  constructor(message: string, context: ErrorContext = {}) {
    super(message, errorOptions(context));
    this.method = context.method;
    this.path = context.path;
    this.retries = context.retries ?? 0;
  }

  /**
   * A plain object for logs and `JSON.stringify`: `name`, `message`, `method`, `path` and `retries`,
   * plus each subclass's own fields. No `cause` and no stack.
   */
  toJSON(): Record<string, unknown> {
    return requestErrorJSON(this);
  }
}

/** The context of an error answer from the provider: the request's, plus what the response said. */
export interface APIErrorContext extends ErrorContext {
  /** HTTP status of the response. */
  status: number;
  /** The provider's `error` field, when the body had one. */
  code?: string;
  /** At most 500 characters of the response body, with the API key masked if it ever appeared. */
  bodyExcerpt?: string;
  /** `x-vercel-id` or `x-request-id` of the response, for support requests. */
  requestId?: string;
}

/**
 * The provider answered with an error status. Thrown as is for a status no subclass covers (a 400, or
 * a 408 once its retries are spent); the subclasses cover 401, 403, 404, 429 and 5xx.
 */
export class ProviderAPIError extends ProviderError {
  override readonly name: string = 'ProviderAPIError';
  /** HTTP status of the response. */
  readonly status: number;
  /** The `error` field of the response body, when it had one. */
  readonly code: string | undefined;
  /** At most 500 characters of the response body, with the API key shown as `[REDACTED]` if it ever appeared. */
  readonly bodyExcerpt: string | undefined;
  /** The response's `x-vercel-id` (else `x-request-id`) header, to quote in a support request. */
  readonly requestId: string | undefined;

  constructor(message: string, context: APIErrorContext) {
    super(message, context);
    this.status = context.status;
    this.code = context.code;
    this.bodyExcerpt = context.bodyExcerpt;
    this.requestId = context.requestId;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code,
      bodyExcerpt: this.bodyExcerpt,
      requestId: this.requestId,
    };
  }
}

/** HTTP 401: the API key was missing or not accepted. Not retried. */
export class AuthenticationError extends ProviderAPIError {
  override readonly name: string = 'AuthenticationError';
}

/** HTTP 403: the API key is invalid or revoked, or the subscription has lapsed. Not retried. */
export class PermissionDeniedError extends ProviderAPIError {
  override readonly name: string = 'PermissionDeniedError';
}

/**
 * HTTP 404: an unknown account, or one hidden by the key's Account Access. Not retried. `getHoldings`
 * turns a 404 into `{ supported: false }` instead of throwing it.
 */
export class NotFoundError extends ProviderAPIError {
  override readonly name: string = 'NotFoundError';
}

/**
 * A 5xx answer that is not a rate limit in disguise. Retried up to `maxRetries` times, then thrown.
 * `getHoldings` turns a 501 into `{ supported: false }` instead of throwing it.
 */
export class ServerError extends ProviderAPIError {
  override readonly name: string = 'ServerError';
}

/** The context of a `RateLimitError`: an API error's, plus the wait the provider asked for. */
export interface RateLimitErrorContext extends APIErrorContext {
  /** How long the provider asked us to wait, when it said (header or message text). */
  retryAfterMs?: number;
}

/**
 * HTTP 429, or a 5xx whose body carries the upstream rate-limit text (the provider sends a 500 for it).
 * Retried when the stated wait is at most `maxRetryAfterMs`; a longer one is thrown at once, with
 * `retryAfterMs` so the caller can reschedule.
 */
export class RateLimitError extends ProviderAPIError {
  override readonly name: string = 'RateLimitError';
  /** Milliseconds to wait before the next call, from `Retry-After` or the message text; `undefined` if not stated. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, context: RateLimitErrorContext) {
    super(message, context);
    this.retryAfterMs = context.retryAfterMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}

/**
 * No response arrived: the connection was refused or reset, DNS failed, or an error answer's body
 * stopped arriving. Retried up to `maxRetries` times, then thrown.
 */
export class ConnectionError extends ProviderError {
  override readonly name: string = 'ConnectionError';
}

/**
 * No response headers within `timeoutMs`, or a successful answer whose body stopped arriving for as
 * long. Retried like any `ConnectionError`.
 */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
  /** The per-attempt limit that ran out, in milliseconds (the client's `timeoutMs`). */
  readonly timeoutMs: number;

  constructor(message: string, context: ErrorContext & { timeoutMs: number }) {
    super(message, context);
    this.timeoutMs = context.timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), timeoutMs: this.timeoutMs };
  }
}

/**
 * The caller's `AbortSignal` fired, before or during a request (or between the pages of a
 * `TransactionList`). Not an API error, and never retried.
 */
export class RequestAbortedError extends ProviderError {
  override readonly name: string = 'RequestAbortedError';
}

/**
 * The provider answered with a redirect the client will not follow: to a host outside the base URL's
 * host family (its host with or without `www.`, as `lunchflow.app` and `www.lunchflow.app`), so the key
 * is never sent elsewhere, or past 5 redirects in a row. Not retried.
 */
export class RedirectError extends ProviderError {
  override readonly name: string = 'RedirectError';
  /** Where the provider tried to send us, with the API key masked if it appeared in it. */
  readonly location: string;
  /** HTTP status of the redirect (301, 302, 307, 308, …). */
  readonly status: number;

  constructor(message: string, context: ErrorContext & { location: string; status: number }) {
    super(message, context);
    this.location = context.location;
    this.status = context.status;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, location: this.location };
  }
}

/** One thing wrong with a response body, as listed in `InvalidResponseError.issues`. */
export interface ResponseIssue {
  /** Where in the body, e.g. `transactions[3].amount`; `''` for the body as a whole. */
  path: string;
  /** What was wrong there, e.g. `expected a decimal number, got "1,234.56"`. */
  message: string;
}

/**
 * A 2xx answer whose body is not JSON or not the provider's wire format (a missing field, an amount
 * like `"1,234.56"`, a date that reads as no date). Not retried: asking again gets the same body.
 */
export class InvalidResponseError extends ProviderError {
  override readonly name: string = 'InvalidResponseError';
  /** The first issues found (at most 10), each naming the field, e.g. `transactions[3].amount`. */
  readonly issues: readonly ResponseIssue[];
  /** HTTP status of the (successful) response. */
  readonly status: number | undefined;

  constructor(message: string, context: ErrorContext & { issues?: ResponseIssue[]; status?: number }) {
    super(message, context);
    this.issues = context.issues ?? [];
    this.status = context.status;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, issues: this.issues };
  }
}
