/**
 * The request pipeline shared by every call of one client: ky for timeouts and retries, typed errors
 * from an afterResponse hook, the retry policy of retry.ts, and the rate-limit headers.
 */
import ky, { TimeoutError as KyTimeoutError, isForceRetryError, type Options as KyOptions } from 'ky';
import {
  AuthenticationError,
  ConnectionError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  ServerError,
  ServiceAPIError,
  ServiceError,
  TimeoutError,
  ValidationError,
  type APIErrorContext,
} from './errors.js';
import { logTo, type ServiceLogger } from './logger.js';
import { readRateLimit, type RateLimitSnapshot } from './rate-limit.js';
import { fetchWithinOrigin, type RedirectSettings } from './redirect.js';
import {
  backoffDelay,
  isRetryableStatus,
  parseResetSeconds,
  parseRetryAfterHeader,
  parseWaitFromText,
  retriesWithoutResponse,
  retryClassOf,
  type RetryClass,
} from './retry.js';

export interface HttpSettings {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  fetch: typeof globalThis.fetch;
  logger: ServiceLogger | undefined;
  /** Called with the rate-limit headers of every response that has them. */
  onRateLimit: (snapshot: RateLimitSnapshot) => void;
}

export interface RequestSpec {
  method: string;
  /** Path below the base URL, without a leading slash (`api/v1/transactions/…`). */
  path: string;
  query?: URLSearchParams | undefined;
  /** Sent as a JSON body when defined. */
  json?: unknown;
  signal?: AbortSignal | undefined;
  /** Overrides the method's retry class (`retryClassOf`), e.g. `idempotent` for a keyed POST. */
  retryClass?: RetryClass | undefined;
}

export interface JsonResponse {
  body: unknown;
  status: number;
  method: string;
  /** Path and query, relative to the base URL (`/api/v1/transactions?page=2`). */
  path: string;
  requestId: string | undefined;
}

const EXCERPT_LENGTH = 500;

export function redact(text: string, secret: string): string {
  return secret.length >= 4 ? text.split(secret).join('[REDACTED]') : text;
}

interface ErrorBodyParts {
  code?: string;
  message?: string;
  errors?: string[];
  details?: Record<string, unknown>;
}

function readErrorBody(text: string): ErrorBodyParts {
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

export class HttpClient {
  readonly #settings: HttpSettings;
  readonly #prefixUrl: string;
  readonly #basePath: string;
  readonly #redirects: RedirectSettings;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#prefixUrl = `${settings.baseUrl.replace(/\/+$/, '')}/`;
    this.#basePath = new URL(this.#prefixUrl).pathname.replace(/\/+$/, '');
    this.#redirects = {
      fetch: (input, init) => settings.fetch(input, init),
      baseUrl: settings.baseUrl,
      mask: (text) => redact(text, settings.apiKey),
      relativePath: (url) => this.#relativePath(url),
      logger: settings.logger,
    };
  }

  /** Sends one request (retrying per the method's policy) and returns the parsed JSON of a 2xx answer. */
  async requestJson(spec: RequestSpec): Promise<JsonResponse> {
    const method = spec.method.toUpperCase();
    const query = spec.query?.toString() ?? '';
    const path = `/${spec.path}${query ? `?${query}` : ''}`;
    const context = { method, path };
    if (spec.signal?.aborted) {
      throw new RequestAbortedError(`${method} ${path} aborted before it was sent`, {
        ...context,
        cause: spec.signal.reason,
      });
    }
    const retryClass = spec.retryClass ?? retryClassOf(method);
    const state = { retries: 0 };
    const started = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await ky(spec.path, this.#kyOptions(spec, method, retryClass, state));
      text = await response.text();
    } catch (error) {
      throw this.#wrap(error, { ...context, retries: state.retries }, spec.signal);
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    logTo(this.#settings.logger, 'debug', 'service request done', {
      ...context,
      status: response.status,
      retries: state.retries,
      durationMs: Math.round(performance.now() - started),
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new InvalidResponseError(`service sent a body that is not JSON for ${method} ${path}`, {
        ...context,
        status: response.status,
        issues: [{ path: '', message: `not JSON: ${JSON.stringify(this.#excerpt(text, 80))}` }],
      });
    }
    return { body, status: response.status, method, path, requestId };
  }

  #kyOptions(
    spec: RequestSpec,
    method: string,
    retryClass: RetryClass,
    state: { retries: number },
  ): KyOptions {
    return {
      prefixUrl: this.#prefixUrl,
      method,
      searchParams: spec.query,
      json: spec.json,
      signal: spec.signal,
      timeout: this.#settings.timeoutMs,
      throwHttpErrors: false,
      headers: { accept: 'application/json' },
      // Redirects are followed by hand, within the service's origin only (redirect.ts): fetch's
      // own following would send X-Api-Key to any origin a Location names.
      redirect: 'manual',
      fetch: (input, init) => fetchWithinOrigin(this.#redirects, input as Request, init),
      retry: {
        limit: this.#settings.maxRetries,
        // Retries without a response (network errors, timeouts); statuses are judged in afterResponse.
        methods: retriesWithoutResponse(retryClass) ? [method.toLowerCase()] : [],
        statusCodes: [],
        retryOnTimeout: true,
        delay: (attempt) => backoffDelay(attempt),
        shouldRetry: ({ error }) =>
          spec.signal?.aborted || error instanceof ServiceError || error.name === 'AbortError'
            ? false
            : undefined,
      },
      hooks: {
        beforeRequest: [(request) => request.headers.set('x-api-key', this.#settings.apiKey)],
        beforeRetry: [
          ({ error, retryCount }) => {
            state.retries = retryCount;
            if (isForceRetryError(error)) return;
            logTo(this.#settings.logger, 'warn', 'service request failed without a response; retrying', {
              method,
              path: `/${spec.path}`,
              error: error instanceof KyTimeoutError ? 'TimeoutError' : error.name,
              retry: retryCount,
            });
          },
        ],
        afterResponse: [
          async (request, _options, response, kyState) => {
            const snapshot = readRateLimit(response.headers);
            if (snapshot) this.#settings.onRateLimit(snapshot);
            if (response.ok) return;
            const error = await this.#errorFor(request, response, kyState.retryCount, snapshot);
            const retryDelay = this.#retryDelayFor(error, response, retryClass, kyState.retryCount);
            if (retryDelay === undefined) throw error;
            logTo(this.#settings.logger, 'warn', 'service request failed; retrying', {
              method,
              path: error.path,
              status: response.status,
              code: error.code,
              retry: kyState.retryCount + 1,
              delayMs: retryDelay,
            });
            return ky.retry({ delay: retryDelay, code: error.name });
          },
        ],
      },
    };
  }

  #excerpt(text: string, length = EXCERPT_LENGTH): string {
    const clean = redact(text, this.#settings.apiKey);
    return clean.length > length ? `${clean.slice(0, length)}…` : clean;
  }

  #relativePath(url: string): string {
    const target = new URL(url);
    const path = target.pathname.startsWith(this.#basePath)
      ? target.pathname.slice(this.#basePath.length)
      : target.pathname;
    return `${path}${target.search}`;
  }

  async #errorFor(
    request: Request,
    response: Response,
    retryCount: number,
    rateLimit: RateLimitSnapshot | undefined,
  ): Promise<ServiceAPIError> {
    const text = await response.text().catch(() => '');
    const key = this.#settings.apiKey;
    const parts = readErrorBody(text);
    const status = response.status;
    const serverMessage = parts.message === undefined ? undefined : redact(parts.message, key);
    const errors = (parts.errors ?? []).map((e) => redact(e, key));
    const context: APIErrorContext = {
      method: request.method,
      path: this.#relativePath(request.url),
      retries: retryCount,
      status,
      code: parts.code === undefined ? undefined : redact(parts.code, key),
      serverMessage,
      errors,
      details: parts.details,
      requestId: response.headers.get('x-request-id') ?? undefined,
      rateLimit,
      bodyExcerpt: text ? this.#excerpt(text) : undefined,
    };
    const what = `${request.method} ${context.path} answered ${status}${context.code ? ` ${context.code}` : ''}`;
    const message = `${what}${serverMessage ? `: ${serverMessage}` : ''}${errors.length ? ` (${errors.join('; ')})` : ''}`;

    if (status === 401) return new AuthenticationError(message, context);
    if (status === 403) return new PermissionDeniedError(message, context);
    if (status === 404) return new NotFoundError(message, context);
    if (status === 422) return new ValidationError(message, context);
    if (status === 429) {
      const resetSeconds = parts.details?.reset_in_seconds;
      const retryAfterMs =
        parseRetryAfterHeader(response.headers.get('retry-after')) ??
        parseResetSeconds(response.headers.get('x-ratelimit-reset')) ??
        (typeof resetSeconds === 'number' && Number.isFinite(resetSeconds) && resetSeconds >= 0
          ? Math.round(resetSeconds * 1000)
          : undefined) ??
        parseWaitFromText(parts.message ?? parts.code ?? text);
      return new RateLimitError(message, { ...context, retryAfterMs });
    }
    if (status >= 500) return new ServerError(message, context);
    return new ServiceAPIError(message, context);
  }

  /** How long to wait before retrying `error`, or `undefined` to give up and throw it. */
  #retryDelayFor(
    error: ServiceAPIError,
    response: Response,
    retryClass: RetryClass,
    retryCount: number,
  ): number | undefined {
    if (retryCount >= this.#settings.maxRetries) return undefined;
    if (!isRetryableStatus(retryClass, error.status)) return undefined;
    const asked =
      error instanceof RateLimitError
        ? error.retryAfterMs
        : parseRetryAfterHeader(response.headers.get('retry-after'));
    if (asked !== undefined) {
      // Sleeping for minutes inside a call helps nobody: hand the wait to the caller instead.
      return asked <= this.#settings.maxRetryAfterMs ? asked : undefined;
    }
    return backoffDelay(retryCount + 1);
  }

  #wrap(
    error: unknown,
    context: { method: string; path: string; retries: number },
    signal: AbortSignal | undefined,
  ): ServiceError {
    if (error instanceof ServiceError) return error;
    const what = `${context.method} ${context.path}`;
    if (signal?.aborted) {
      return new RequestAbortedError(`${what} aborted`, { ...context, cause: signal.reason });
    }
    if (error instanceof KyTimeoutError) {
      return new TimeoutError(`${what} got no response within ${this.#settings.timeoutMs} ms`, {
        ...context,
        timeoutMs: this.#settings.timeoutMs,
      });
    }
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    // Keep the original error as the cause unless it could carry the request (and so the key).
    const safeCause =
      error instanceof Error && !('request' in error) && !('options' in error) ? error : undefined;
    return new ConnectionError(`${what} failed to connect: ${redact(reason, this.#settings.apiKey)}`, {
      ...context,
      cause: safeCause,
    });
  }
}
