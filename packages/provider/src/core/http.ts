/**
 * The request pipeline shared by every call of one client: ky for timeouts and retries, a slot queue (slots.ts)
 * at the request seam for the client-side rate limit, same-host-family redirects (redirect.ts), and
 * typed errors judged from each attempt's answer (#fetchAttempt). Reading the body and mapping
 * failures without an answer is shared with the service client (packages/internals/src/http).
 */
import {
  backoffDelay,
  delayBeforeRetry,
  errorBodyText,
  excerpt,
  exchangeStream,
  logTo,
  parseRetryAfterHeader,
  parseWaitFromText,
  readErrorBody,
  receiveJson,
  redact,
  relativePath,
} from '@finsync/internals/http';
import ky, { ForceRetryError, type KyInstance } from 'ky';
import {
  AuthenticationError,
  ConnectionError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  ProviderAPIError,
  ProviderError,
  RateLimitError,
  RequestAbortedError,
  ServerError,
  TimeoutError,
  type APIErrorContext,
} from './errors.js';
import type { ProviderLogger } from './logger.js';
import { fetchWithinHostFamily, type RedirectSettings } from './redirect.js';
import { slotQueue } from './slots.js';
import { looksLikeRateLimit } from './retry.js';

/**
 * The client-side throttle of `ProviderClientOptions.rateLimit`: at most `limit` calls in any
 * `intervalMs` (a strict sliding window), shared by every call of one client, retries included.
 */
export interface RateLimitOptions {
  /** Calls allowed per interval. */
  limit: number;
  /** Interval length in milliseconds. */
  intervalMs: number;
}

export interface HttpSettings {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  rateLimit: RateLimitOptions | false;
  fetch: typeof globalThis.fetch;
  logger: ProviderLogger | undefined;
}

export interface GetOptions {
  query?: Record<string, string | undefined>;
  signal?: AbortSignal | undefined;
}

export interface JsonResponse {
  body: unknown;
  status: number;
  /** Path and query, relative to the base URL. */
  path: string;
  requestId: string | undefined;
}

export interface StreamResponse {
  status: number;
  /** Path and query, relative to the base URL. */
  path: string;
  requestId: string | undefined;
  /** The body's bytes as they arrive. */
  chunks(): AsyncIterable<Uint8Array>;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
/** Where the provider puts the id support asks for: Vercel's edge id first, else its own. */
const REQUEST_ID_HEADERS = ['x-vercel-id', 'x-request-id'];

/**
 * Bytes of an answer read whole (one window's rows, an account list, a balance). A whole history is
 * read as a stream instead (whole-history.ts); a window of a year of a busy account is a few MB, and
 * V8 takes no string over 512 MiB, where the read would fail with a RangeError of its own.
 */
export const MAX_READ_BODY_BYTES = 256 * 2 ** 20;

/** This client's classes for failures without an answer (see packages/internals/src/http). */
const PROVIDER_ERRORS = {
  base: ProviderError,
  aborted: RequestAbortedError,
  timeout: TimeoutError,
  connection: ConnectionError,
  invalidResponse: InvalidResponseError,
};

export class HttpClient {
  readonly #settings: HttpSettings;
  readonly #ky: KyInstance;
  readonly #redirects: RedirectSettings;
  /** The base URL's path without its trailing slash: what errors leave off the paths they show. */
  readonly #basePath: string;
  /** The wait a 5xx answer's `Retry-After` asked for, by the error made of it. */
  readonly #askedWait = new WeakMap<ProviderAPIError, number>();

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#basePath = new URL(settings.baseUrl).pathname.replace(/\/+$/, '');
    this.#redirects = {
      fetch: (input, init) => settings.fetch(input, init),
      baseUrl: settings.baseUrl,
      mask: (text) => redact(text, settings.apiKey),
      relativePath: (url) => this.#relativePath(url),
      logger: settings.logger,
    };
    const waitForSlot = settings.rateLimit
      ? slotQueue(settings.rateLimit.limit, settings.rateLimit.intervalMs)
      : undefined;

    this.#ky = ky.create({
      prefixUrl: settings.baseUrl.replace(/\/+$/, '') + '/',
      timeout: settings.timeoutMs,
      throwHttpErrors: false,
      redirect: 'manual',
      headers: { accept: 'application/json' },
      retry: {
        limit: settings.maxRetries,
        methods: ['get'],
        statusCodes: [],
        retryOnTimeout: true,
        delay: (attempt) => backoffDelay(attempt),
        // Our own errors were already judged by #fetchAttempt; aborts are never retried.
        shouldRetry: ({ error }) =>
          error instanceof ProviderError || (error as { name?: string }).name === 'AbortError'
            ? false
            : undefined,
      },
      hooks: {
        beforeRequest: [
          // Waiting for a slot happens before ky starts the timeout clock, and every retry waits too.
          waitForSlot
            ? async (request) => {
                await waitForSlot(request.signal);
                request.headers.set('x-api-key', this.#settings.apiKey);
              }
            : (request) => request.headers.set('x-api-key', this.#settings.apiKey),
        ],
      },
    });
  }

  /** Sends `GET {baseUrl}/{path}` and returns the parsed JSON body, or throws a typed error. */
  async getJson(path: string, options: GetOptions = {}): Promise<JsonResponse> {
    return (await this.receiveJson(path, options))();
  }

  /**
   * `getJson` in two steps: resolves once the body is in, and parses it when asked, so that the next
   * request can go out before this answer's CPU is spent. Errors are `getJson`'s, each in its step.
   */
  async receiveJson(path: string, options: GetOptions = {}): Promise<() => JsonResponse> {
    const { exchange, requestPath } = this.#exchange(path, options);
    const received = await receiveJson(exchange);
    return () => ({ ...received.parse(), path: requestPath });
  }

  /**
   * Sends `GET {baseUrl}/{path}` and hands back a 2xx answer before its body is read; any other
   * answer throws the typed error, as `getJson` does.
   */
  async getStream(path: string, options: GetOptions = {}): Promise<StreamResponse> {
    const { exchange, requestPath } = this.#exchange(path, options);
    const answer = await exchangeStream(exchange);
    return { status: answer.status, requestId: answer.requestId, chunks: answer.chunks, path: requestPath };
  }

  #exchange(path: string, options: GetOptions) {
    const searchParams = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) searchParams.set(key, value);
    }
    const query = searchParams.toString();
    const requestPath = `/${path}${query ? `?${query}` : ''}`;
    if (options.signal?.aborted) {
      throw new RequestAbortedError('request aborted before it started', {
        method: 'GET',
        path: requestPath,
      });
    }
    // Attempts of this call so far, across the ky calls a body cut off after its headers makes.
    const state = { attempts: 0 };
    const maxRetries = this.#settings.maxRetries;
    const exchange = {
      peer: 'provider',
      method: 'GET',
      path: requestPath,
      signal: options.signal,
      timeoutMs: this.#settings.timeoutMs,
      apiKey: this.#settings.apiKey,
      logger: this.#settings.logger,
      errors: PROVIDER_ERRORS,
      requestIdHeaders: REQUEST_ID_HEADERS,
      maxBodyBytes: MAX_READ_BODY_BYTES,
      send: () => {
        const base = state.attempts;
        // The query goes in the path: given `searchParams`, ky builds the request twice.
        return this.#ky.get(requestPath.slice(1), {
          signal: options.signal,
          fetch: (input, init) => this.#fetchAttempt(input as Request, init, state.attempts++),
          retry: { limit: maxRetries - base, delay: (attempt) => backoffDelay(base + attempt) },
        });
      },
      retries: () => Math.max(0, state.attempts - 1),
      // Only a body read whole is asked for again (getJson, receiveJson): a stream's rows may be in
      // its reader's hands already.
      retryBody: () => (state.attempts <= maxRetries ? backoffDelay(state.attempts) : undefined),
    };
    return { exchange, requestPath };
  }

  /**
   * One attempt of a request: a 2xx answer is handed back; any other is judged here, as a typed
   * error or as a retry for ky to wait for. Judged in ky's `fetch` rather than in an `afterResponse`
   * hook because ky clones every answer for such a hook, and the clone's tee costs ~100 µs a request
   * and more on every chunk of a streamed body (docs/benchmarks-history.md, "Provider client vs plain fetch").
   */
  async #fetchAttempt(
    request: Request,
    init: RequestInit | undefined,
    retryCount: number,
  ): Promise<Response> {
    const response = await fetchWithinHostFamily(this.#redirects, request, init);
    if (response.ok) return response;
    const error = await this.#errorFor(request, response, retryCount);
    // Timed out (or aborted) while the body was read: ky has given up on this attempt already, and
    // judging it would log a retry that is not the one ky makes.
    if (request.signal.aborted) throw request.signal.reason;
    const retryDelay = this.#retryDelayFor(error, retryCount);
    if (retryDelay === undefined) throw error;
    logTo(this.#settings.logger, 'warn', 'provider request failed; retrying', {
      method: request.method,
      path: error.path,
      status: response.status,
      retry: retryCount + 1,
      delayMs: retryDelay,
    });
    throw new ForceRetryError({ delay: retryDelay, code: error.name });
  }

  #relativePath(url: string): string {
    return relativePath(this.#basePath, url);
  }

  async #errorFor(request: Request, response: Response, retryCount: number): Promise<ProviderAPIError> {
    const text = await errorBodyText(response, request.signal);
    const key = this.#settings.apiKey;
    const { code, message: detail } = readErrorBody(text);
    const status = response.status;
    const requestId = REQUEST_ID_HEADERS.map((name) => response.headers.get(name)).find((id) => id !== null);
    // The body and headers are the server's: one that echoes the key must not put it on the error.
    const context: APIErrorContext = {
      method: request.method,
      path: this.#relativePath(request.url),
      retries: retryCount,
      status,
      bodyExcerpt: text ? excerpt(text, key) : undefined,
      requestId: requestId == null ? undefined : redact(requestId, key),
    };
    if (code !== undefined) context.code = redact(code, key);
    const what = `${request.method} ${context.path} answered ${status}`;
    const suffix = detail ? `: ${redact(detail, key)}` : '';

    if (status === 429 || (status >= 500 && looksLikeRateLimit(text))) {
      const retryAfterMs =
        parseRetryAfterHeader(response.headers.get('retry-after')) ??
        (detail ? parseWaitFromText(detail) : undefined);
      return new RateLimitError(`rate limited: ${what}${suffix}`, { ...context, retryAfterMs });
    }
    if (status === 401)
      return new AuthenticationError(`API key missing or not accepted: ${what}${suffix}`, context);
    if (status === 403) {
      return new PermissionDeniedError(`API key invalid or subscription inactive: ${what}${suffix}`, context);
    }
    if (status === 404) return new NotFoundError(`not found: ${what}${suffix}`, context);
    if (status >= 500) {
      const error = new ServerError(`provider error: ${what}${suffix}`, context);
      // A 503's Retry-After is waited out as a 429's is (not kept on the error: the header is the server's).
      const asked = parseRetryAfterHeader(response.headers.get('retry-after'));
      if (asked !== undefined) this.#askedWait.set(error, asked);
      return error;
    }
    return new ProviderAPIError(`${what}${suffix}`, context);
  }

  /** How long to wait before retrying `error`, or `undefined` to give up and throw it. */
  #retryDelayFor(error: ProviderAPIError, retryCount: number): number | undefined {
    if (retryCount >= this.#settings.maxRetries) return undefined;
    const rateLimited = error instanceof RateLimitError;
    if (!rateLimited && !RETRYABLE_STATUS.has(error.status)) return undefined;
    if (rateLimited)
      return delayBeforeRetry(error.retryAfterMs, retryCount + 1, this.#settings.maxRetryAfterMs);
    // A 5xx is retried whatever it asks (its error carries no wait for the caller to keep): its
    // Retry-After when that is within the cap and no shorter than our own backoff, else the backoff.
    const backoff = backoffDelay(retryCount + 1);
    const asked = this.#askedWait.get(error);
    return asked !== undefined && asked <= this.#settings.maxRetryAfterMs
      ? Math.max(asked, backoff)
      : backoff;
  }
}
