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

export class ProviderError extends Error {
  override readonly name: string = 'ProviderError';
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
  /** The provider's `error` field, when the body had one. */
  code?: string;
  /** At most 500 characters of the response body, with the API key masked if it ever appeared. */
  bodyExcerpt?: string;
  /** `x-vercel-id` or `x-request-id` of the response, for support requests. */
  requestId?: string;
}

export class ProviderAPIError extends ProviderError {
  override readonly name: string = 'ProviderAPIError';
  readonly status: number;
  readonly code: string | undefined;
  readonly bodyExcerpt: string | undefined;
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

export class AuthenticationError extends ProviderAPIError {
  override readonly name: string = 'AuthenticationError';
}

export class PermissionDeniedError extends ProviderAPIError {
  override readonly name: string = 'PermissionDeniedError';
}

export class NotFoundError extends ProviderAPIError {
  override readonly name: string = 'NotFoundError';
}

export class ServerError extends ProviderAPIError {
  override readonly name: string = 'ServerError';
}

export interface RateLimitErrorContext extends APIErrorContext {
  /** How long the provider asked us to wait, when it said (header or message text). */
  retryAfterMs?: number;
}

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

export class ConnectionError extends ProviderError {
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

export class RequestAbortedError extends ProviderError {
  override readonly name: string = 'RequestAbortedError';
}

export class RedirectError extends ProviderError {
  override readonly name: string = 'RedirectError';
  /** Where the provider tried to send us. */
  readonly location: string;
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

export interface ResponseIssue {
  /** Where in the body, e.g. `transactions[3].amount`. */
  path: string;
  message: string;
}

export class InvalidResponseError extends ProviderError {
  override readonly name: string = 'InvalidResponseError';
  readonly issues: readonly ResponseIssue[];
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
