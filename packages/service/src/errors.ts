/**
 * One error hierarchy for everything the client throws.
 *
 * ServiceError
 * ├─ ServiceAPIError             the service answered with an error status
 * │  ├─ AuthenticationError      401: no key, or a key the service does not accept
 * │  ├─ PermissionDeniedError    403: a read-only key on a write endpoint (`insufficient_scope`)
 * │  ├─ NotFoundError            404: unknown id (or one that is not a UUID)
 * │  ├─ ValidationError          422: `validation_failed`, with the `errors` list
 * │  ├─ RateLimitError           429: `rate_limit_exceeded`, with `retryAfterMs`
 * │  └─ ServerError              5xx
 * ├─ ConnectionError             no response at all (DNS, reset, refused …)
 * │  └─ TimeoutError             no response within `timeoutMs`
 * ├─ RequestAbortedError         the caller's AbortSignal fired; never retried, not an API error
 * ├─ RedirectError               a redirect the client will not follow (another origin; too many)
 * ├─ InvalidRequestError         the client refused to send a request (nothing was sent)
 * └─ InvalidResponseError        a 2xx body that is not JSON or not the service's format
 *
 * No error keeps the request, its headers or the API key: only the method, the path (with query)
 * and what the body said, so errors are safe to log and serialize. (What the base keeps and
 * serializes is shared with the provider client: packages/internals/src/http/error-base.ts.)
 */
import { errorOptions, requestErrorJSON } from '@finsync/internals/http';
import type { RateLimitSnapshot } from './rate-limit.js';

/**
 * What every error of the client records about the request that failed: the second argument of the
 * error constructors. It holds no headers and no API key.
 */
export interface ErrorContext {
  /** HTTP method of the request. */
  method?: string | undefined;
  /** Path and query of the request, relative to the base URL (e.g. `/api/v1/transactions/…`). */
  path?: string | undefined;
  /** Number of retries made before giving up. */
  retries?: number | undefined;
  /** Kept as the error's `cause`, unless it could carry the request (and so the API key). */
  cause?: unknown;
}

/**
 * The base of everything `ServiceClient` throws once a call has started, so `instanceof ServiceError`
 * means "the service call failed" (bad options are a plain `TypeError` or `RangeError` instead). It keeps
 * the method, the path with query and the retry count, never the request, its headers or the API key,
 * so it is safe to log and to serialize.
 */
export class ServiceError extends Error {
  /** The class name (`'ServiceError'`, `'ValidationError'`, …), kept through bundling and serialization. */
  override readonly name: string = 'ServiceError';
  /** HTTP method of the failed request (`'PATCH'`), when the error is about one. */
  readonly method: string | undefined;
  /** Path and query of the failed request relative to the base URL, e.g. `/api/v1/transactions/…`. */
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

/** The context of an error answer from the service: the request's, plus what the response said. */
export interface APIErrorContext extends ErrorContext {
  /** HTTP status of the response. */
  status: number;
  /** The body's `error` member (`not_found`, `validation_failed`, …). */
  code?: string | undefined;
  /** The body's `message` member, verbatim (key masked). */
  serverMessage?: string | undefined;
  /** The body's `errors` list (422 validation messages); `[]` when absent. */
  errors?: string[] | undefined;
  /** The body's `details` object (429 bodies carry `limit`, `current`, `reset_in_seconds`). */
  details?: Record<string, unknown> | undefined;
  /** `X-Request-Id` of the response. */
  requestId?: string | undefined;
  /** The rate-limit headers of this response, when it had them. */
  rateLimit?: RateLimitSnapshot | undefined;
  /** At most 500 characters of the body, with the API key masked if it ever appeared. */
  bodyExcerpt?: string | undefined;
}

/**
 * The service answered with an error status. Thrown as is for a status no subclass covers (400, 405,
 * 409, a 408 once its retries are spent, …); the subclasses cover 401, 403, 404, 422, 429 and 5xx.
 */
export class ServiceAPIError extends ServiceError {
  override readonly name: string = 'ServiceAPIError';
  /** HTTP status of the response. */
  readonly status: number;
  /** The body's `error` member (`not_found`, `validation_failed`, `rate_limit_exceeded`, …), when it had one. */
  readonly code: string | undefined;
  /** The body's `message` member, verbatim (the API key masked, should it appear). */
  readonly serverMessage: string | undefined;
  /** The body's `errors` list, the messages of a 422 (`["Name can't be blank"]`); `[]` when absent. */
  readonly errors: readonly string[];
  /** The body's `details` object (a 429's `limit`, `current`, `reset_in_seconds`), when it had one. */
  readonly details: Record<string, unknown> | undefined;
  /** The response's `X-Request-Id` header, to quote in a support request. */
  readonly requestId: string | undefined;
  /** The response's `X-RateLimit-*` headers, when it had them. */
  readonly rateLimit: RateLimitSnapshot | undefined;
  /** At most 500 characters of the response body, with the API key shown as `[REDACTED]` if it ever appeared. */
  readonly bodyExcerpt: string | undefined;

  constructor(message: string, context: APIErrorContext) {
    super(message, context);
    this.status = context.status;
    this.code = context.code;
    this.serverMessage = context.serverMessage;
    this.errors = context.errors ?? [];
    this.details = context.details;
    this.requestId = context.requestId;
    this.rateLimit = context.rateLimit;
    this.bodyExcerpt = context.bodyExcerpt;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code,
      serverMessage: this.serverMessage,
      errors: this.errors,
      details: this.details,
      requestId: this.requestId,
      rateLimit: this.rateLimit,
      bodyExcerpt: this.bodyExcerpt,
    };
  }
}

/** HTTP 401: no API key, or one the service does not accept. Not retried. */
export class AuthenticationError extends ServiceAPIError {
  override readonly name: string = 'AuthenticationError';
}

/**
 * HTTP 403: the key may not do this, typically a `read` key on a write endpoint (`code`
 * `insufficient_scope`). Not retried.
 */
export class PermissionDeniedError extends ServiceAPIError {
  override readonly name: string = 'PermissionDeniedError';
}

/**
 * HTTP 404: an unknown id, one that is not a UUID, or another user's; also a `delete` or `restore`
 * repeated after the first went through, and the finsync-only routes on a Sure server. Not retried.
 */
export class NotFoundError extends ServiceAPIError {
  override readonly name: string = 'NotFoundError';
}

/**
 * HTTP 422 (`validation_failed`): the service refused the body, e.g. a date 30+ years back or a split
 * child's delete. Its messages are in `errors`. Not retried.
 */
export class ValidationError extends ServiceAPIError {
  override readonly name: string = 'ValidationError';
}

/** The context of a `RateLimitError`: an API error's, plus the wait the service asked for. */
export interface RateLimitErrorContext extends APIErrorContext {
  /** How long the service asked us to wait; `undefined` if it did not say. */
  retryAfterMs?: number | undefined;
}

/**
 * HTTP 429 (`rate_limit_exceeded`). Retried by every method when the stated wait is at most
 * `maxRetryAfterMs`; a longer one is thrown at once, with `retryAfterMs` so the caller can reschedule.
 */
export class RateLimitError extends ServiceAPIError {
  override readonly name: string = 'RateLimitError';
  /**
   * Milliseconds to wait before the next call: from `Retry-After`, else `X-RateLimit-Reset`, else the
   * body's `details.reset_in_seconds` or its "Try again in N seconds"; `undefined` if none said.
   */
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
 * A 5xx answer. Whether it is retried depends on the method: GET on every 5xx, an update or a create
 * with `external_id` only on 502/503/504 (the service answers client mistakes with 500), other writes
 * never.
 */
export class ServerError extends ServiceAPIError {
  override readonly name: string = 'ServerError';
}

/**
 * No response arrived: the connection was refused or reset, DNS failed, or an error answer's body
 * stopped arriving. Retried for GET, updates and creates with `external_id`; after a create without
 * one, a delete or a restore, whether it took effect is unknown.
 */
export class ConnectionError extends ServiceError {
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

/** The caller's `AbortSignal` fired, before or during a request. Not an API error, and never retried. */
export class RequestAbortedError extends ServiceError {
  override readonly name: string = 'RequestAbortedError';
}

/**
 * The service answered with a redirect the client does not follow: one to another origin (the
 * `X-Api-Key` header would go with it), a write redirected in a way that would turn it into a GET,
 * or too many hops. Nothing was sent to `location`. Never retried.
 */
export class RedirectError extends ServiceError {
  override readonly name: string = 'RedirectError';
  /** The redirect's status (301, 302, 303, 307, 308). */
  readonly status: number;
  /** Where the service pointed: the absolute URL of `Location` (the API key masked, should it appear). */
  readonly location: string;
  /** The origin of `location` (`https://other.example:8443`). */
  readonly origin: string;

  constructor(message: string, context: ErrorContext & { status: number; location: string; origin: string }) {
    super(message, context);
    this.status = context.status;
    this.location = context.location;
    this.origin = context.origin;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, location: this.location, origin: this.origin };
  }
}

/** One thing wrong with a request the client refused, or with a response body it could not read. */
export interface Issue {
  /** Where: `name`, `tag_ids[1]`, `transactions[3].amount_cents`; `''` for the whole body. */
  path: string;
  /** What was wrong there, e.g. `Name can't be blank`. */
  message: string;
}

/**
 * The client refused to send the request; nothing went over the wire. Thrown for a create or update
 * body the service would ignore, mangle or answer with a 500, list params it would silently ignore, a
 * bad id, or a `request()` path that would leave `/api/v1/`.
 */
export class InvalidRequestError extends ServiceError {
  override readonly name: string = 'InvalidRequestError';
  /** The first member at fault (`name`, `tag_ids`, `per_page` …), or `undefined` for the whole body. */
  readonly member: string | undefined;
  /** The problems found, each naming its member (`tag_ids[1]`). */
  readonly issues: readonly Issue[];

  constructor(message: string, context: ErrorContext & { issues: Issue[] }) {
    super(message, context);
    this.issues = context.issues;
    const first = context.issues[0]?.path;
    this.member = first ? first.split(/[.[]/)[0] : undefined;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), member: this.member, issues: this.issues };
  }
}

/**
 * A 2xx answer whose body is not JSON or not the service's format (a missing `id`, a `pagination` that
 * is not numbers). Not retried: asking again gets the same body.
 */
export class InvalidResponseError extends ServiceError {
  override readonly name: string = 'InvalidResponseError';
  /** The first issues found (at most 10), each naming the field, e.g. `transactions[3].amount_cents`. */
  readonly issues: readonly Issue[];
  /** HTTP status of the (successful) response. */
  readonly status: number | undefined;

  constructor(message: string, context: ErrorContext & { issues?: Issue[]; status?: number }) {
    super(message, context);
    this.issues = context.issues ?? [];
    this.status = context.status;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, issues: this.issues };
  }
}

/** `a.b[2].c` from a zod issue path. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );
}
