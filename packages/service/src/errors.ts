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

export class ServiceError extends Error {
  override readonly name: string = 'ServiceError';
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly retries: number;

  constructor(message: string, context: ErrorContext = {}) {
    super(message, errorOptions(context));
    this.method = context.method;
    this.path = context.path;
    this.retries = context.retries ?? 0;
  }

  toJSON(): Record<string, unknown> {
    return requestErrorJSON(this);
  }
}

export interface APIErrorContext extends ErrorContext {
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

export class ServiceAPIError extends ServiceError {
  override readonly name: string = 'ServiceAPIError';
  readonly status: number;
  readonly code: string | undefined;
  readonly serverMessage: string | undefined;
  readonly errors: readonly string[];
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimitSnapshot | undefined;
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

export class AuthenticationError extends ServiceAPIError {
  override readonly name: string = 'AuthenticationError';
}

export class PermissionDeniedError extends ServiceAPIError {
  override readonly name: string = 'PermissionDeniedError';
}

export class NotFoundError extends ServiceAPIError {
  override readonly name: string = 'NotFoundError';
}

export class ValidationError extends ServiceAPIError {
  override readonly name: string = 'ValidationError';
}

export interface RateLimitErrorContext extends APIErrorContext {
  /** How long the service asked us to wait; `undefined` if it did not say. */
  retryAfterMs?: number | undefined;
}

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

export class ServerError extends ServiceAPIError {
  override readonly name: string = 'ServerError';
}

export class ConnectionError extends ServiceError {
  override readonly name: string = 'ConnectionError';
}

export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
  readonly timeoutMs: number;

  constructor(message: string, context: ErrorContext & { timeoutMs: number }) {
    super(message, context);
    this.timeoutMs = context.timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), timeoutMs: this.timeoutMs };
  }
}

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

export interface Issue {
  /** Where: `name`, `tag_ids[1]`, `transactions[3].amount_cents`; `''` for the whole body. */
  path: string;
  message: string;
}

/** The client refused to send the request; nothing went over the wire. */
export class InvalidRequestError extends ServiceError {
  override readonly name: string = 'InvalidRequestError';
  /** The first member at fault (`name`, `tag_ids`, `per_page` …), or `undefined` for the whole body. */
  readonly member: string | undefined;
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

export class InvalidResponseError extends ServiceError {
  override readonly name: string = 'InvalidResponseError';
  readonly issues: readonly Issue[];
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
