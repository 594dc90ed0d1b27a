/**
 * The request pipeline shared by every call of one client: ky for timeouts and retries, typed errors
 * from each attempt's answer (#fetchAttempt), the retry policy of retry.ts, and the rate-limit headers.
 */
import {
  checkedSignal,
  delayBeforeRetry,
  errorBodyText,
  excerpt,
  exchangeJson,
  logTo,
  readErrorBody,
  redact,
  redactDeep,
  relativePath,
} from '@finsync/internals/http';
import ky, {
  ForceRetryError,
  TimeoutError as KyTimeoutError,
  isForceRetryError,
  type Options as KyOptions,
} from 'ky';
import {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
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
import { LIMITS, count } from './limits.js';
import type { ServiceLogger } from './logger.js';
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

/** A response header's value with the key masked, `undefined` when absent. */
function redactHeader(value: string | null, key: string): string | undefined {
  return value === null ? undefined : redact(value, key);
}

/** This client's classes for failures without an answer (see packages/internals/src/http). */
const SERVICE_ERRORS = {
  base: ServiceError,
  aborted: RequestAbortedError,
  timeout: TimeoutError,
  connection: ConnectionError,
  invalidResponse: InvalidResponseError,
};

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
    // Every call's `signal` comes through here: refused before anything is sent, not by fetch.
    checkedSignal(spec.signal);
    const method = spec.method.toUpperCase();
    const query = spec.query?.toString() ?? '';
    const path = `/${spec.path}${query ? `?${query}` : ''}`;
    const context = { method, path };
    if (path.length > LIMITS.url) {
      // The last guard (request() can carry any query): refused, and not repeated in the message.
      const message = `its path and query would be ${count(path.length)} characters, over ${count(LIMITS.url)}`;
      throw new InvalidRequestError(`refused to send ${method}: ${message}`, {
        method,
        path: `${path.slice(0, 100)}…`,
        issues: [{ path: '', message }],
      });
    }
    if (spec.signal?.aborted) {
      throw new RequestAbortedError(`${method} ${path} aborted before it was sent`, {
        ...context,
        cause: spec.signal.reason,
      });
    }
    const retryClass = spec.retryClass ?? retryClassOf(method);
    // `retries` counts every repeat of this call; `base` those made before the current ky call (a body
    // cut off after its headers is sent again by a new ky call, which counts from zero).
    const state = { retries: 0, base: 0 };
    const answer = await exchangeJson({
      peer: 'service',
      method,
      path,
      signal: spec.signal,
      timeoutMs: this.#settings.timeoutMs,
      apiKey: this.#settings.apiKey,
      logger: this.#settings.logger,
      errors: SERVICE_ERRORS,
      requestIdHeaders: ['x-request-id'],
      maxBodyBytes: LIMITS.responseBytes,
      send: () => ky(spec.path, this.#kyOptions(spec, method, retryClass, state)),
      retries: () => state.retries,
      retryBody: () => {
        if (!retriesWithoutResponse(retryClass) || state.retries >= this.#settings.maxRetries)
          return undefined;
        state.retries += 1;
        state.base = state.retries;
        return backoffDelay(state.retries);
      },
    });
    const requestId =
      answer.requestId === undefined ? undefined : redact(answer.requestId, this.#settings.apiKey);
    return { ...answer, requestId, method, path };
  }

  #kyOptions(
    spec: RequestSpec,
    method: string,
    retryClass: RetryClass,
    state: { retries: number; base: number },
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
      fetch: (input, init) => this.#fetchAttempt(input as Request, init, method, retryClass, state.retries),
      retry: {
        limit: this.#settings.maxRetries - state.base,
        // Retries without a response (network errors, timeouts); statuses are judged by #fetchAttempt.
        methods: retriesWithoutResponse(retryClass) ? [method.toLowerCase()] : [],
        statusCodes: [],
        retryOnTimeout: true,
        delay: (attempt) => backoffDelay(state.base + attempt),
        shouldRetry: ({ error }) =>
          spec.signal?.aborted || error instanceof ServiceError || error.name === 'AbortError'
            ? false
            : undefined,
      },
      hooks: {
        beforeRequest: [(request) => request.headers.set('x-api-key', this.#settings.apiKey)],
        beforeRetry: [
          ({ error, retryCount }) => {
            state.retries = state.base + retryCount;
            if (isForceRetryError(error)) return;
            logTo(this.#settings.logger, 'warn', 'service request failed without a response; retrying', {
              method,
              path: `/${spec.path}`,
              error: error instanceof KyTimeoutError ? 'TimeoutError' : error.name,
              retry: retryCount,
            });
          },
        ],
      },
    };
  }

  /**
   * One attempt of a request: a 2xx answer is handed back; any other is judged here, as a typed
   * error or as a retry for ky to wait for. Judged in ky's `fetch` rather than in an `afterResponse`
   * hook because ky clones every answer for such a hook, which costs a stream tee per request.
   */
  async #fetchAttempt(
    request: Request,
    init: RequestInit | undefined,
    method: string,
    retryClass: RetryClass,
    retryCount: number,
  ): Promise<Response> {
    const response = await fetchWithinOrigin(this.#redirects, request, init);
    const snapshot = readRateLimit(response.headers);
    if (snapshot) this.#settings.onRateLimit(snapshot);
    if (response.ok) return response;
    const error = await this.#errorFor(request, response, retryCount, snapshot);
    // Timed out (or aborted) while the body was read: ky has given up on this attempt already, and
    // judging it would log a retry that is not the one ky makes.
    if (request.signal.aborted) throw request.signal.reason;
    const retryDelay = this.#retryDelayFor(error, response, retryClass, retryCount);
    if (retryDelay === undefined) throw error;
    logTo(this.#settings.logger, 'warn', 'service request failed; retrying', {
      method,
      path: error.path,
      status: response.status,
      code: error.code,
      retry: retryCount + 1,
      delayMs: retryDelay,
    });
    throw new ForceRetryError({ delay: retryDelay, code: error.name });
  }

  #relativePath(url: string): string {
    return relativePath(this.#basePath, url);
  }

  async #errorFor(
    request: Request,
    response: Response,
    retryCount: number,
    rateLimit: RateLimitSnapshot | undefined,
  ): Promise<ServiceAPIError> {
    const text = await errorBodyText(response, request.signal);
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
      details: parts.details === undefined ? undefined : redactDeep(parts.details, key),
      // A header is as likely as a body to echo the key (a proxy's id built from the request).
      requestId: redactHeader(response.headers.get('x-request-id'), key),
      rateLimit,
      bodyExcerpt: text ? excerpt(text, key) : undefined,
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
    if (error instanceof RateLimitError)
      return delayBeforeRetry(error.retryAfterMs, retryCount + 1, this.#settings.maxRetryAfterMs);
    // A 5xx is retried whatever wait it asks (its error carries none for the caller to keep, and a
    // proxy's maintenance page may ask for minutes): that wait within the cap, else the backoff.
    const asked = parseRetryAfterHeader(response.headers.get('retry-after'));
    return asked !== undefined && asked <= this.#settings.maxRetryAfterMs
      ? asked
      : backoffDelay(retryCount + 1);
  }
}
