import type { z } from 'zod';
import { InvalidRequestError, InvalidResponseError, formatIssuePath, type Issue } from './errors.js';
import { HttpClient, type JsonResponse } from './http.js';
import { logTo, type ServiceLogger } from './logger.js';
import { createTransactionList, type TransactionList, type TransactionPage } from './pagination.js';
import type { RateLimitSnapshot } from './rate-limit.js';
import {
  TransactionPageSchema,
  TransactionSchema,
  isCalendarDate,
  type Transaction,
  type TransactionListParams,
  type TransactionUpdate,
} from './schemas.js';
import { buildUpdateBody } from './update-body.js';

export interface ServiceClientOptions {
  /** The service root, e.g. `http://localhost:3000`; paths are `/api/v1/…`. A trailing `/api/v1` is dropped. */
  baseUrl: string;
  /** The API key. Sent as `X-Api-Key`; never logged, never kept on errors, hidden from inspect/JSON. */
  apiKey: string;
  /** Per attempt; a retried call can take longer in total. Default 30 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt (see the README's retry policy). Default 2. */
  maxRetries?: number;
  /**
   * The longest server-requested wait (`Retry-After`, …) a call sleeps through before retrying. A
   * longer one throws `RateLimitError` with `retryAfterMs` at once, so the caller can reschedule.
   * Default 60 000 ms.
   */
  maxRetryAfterMs?: number;
  /** A `fetch` implementation; default `globalThis.fetch` (looked up per call, so MSW sees it). */
  fetch?: typeof globalThis.fetch;
  logger?: ServiceLogger;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RawRequestOptions extends CallOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Below `/api/v1/`, e.g. `categories` or `transactions/…` (segments are sent as given). */
  path: string;
  /** Arrays are sent Rails-style as `name[]=a&name[]=b`. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON, unchecked. */
  body?: unknown;
}

const API_PREFIX = 'api/v1';

function toQuery(query: Record<string, QueryValue> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(`${name}[]`, String(item));
    else params.set(name, String(value));
  }
  return params;
}

function listIssues(params: TransactionListParams): Issue[] {
  const issues: Issue[] = [];
  if (params.page !== undefined && !(Number.isInteger(params.page) && params.page >= 1)) {
    issues.push({ path: 'page', message: 'must be a positive integer' });
  }
  if (
    params.per_page !== undefined &&
    !(Number.isInteger(params.per_page) && params.per_page >= 1 && params.per_page <= 100)
  ) {
    // The service silently answers 25 per page for anything outside 1..100.
    issues.push({ path: 'per_page', message: 'must be an integer from 1 to 100' });
  }
  for (const name of ['start_date', 'end_date'] as const) {
    const value = params[name];
    if (value !== undefined && !isCalendarDate(value)) {
      issues.push({ path: name, message: 'must be a calendar date YYYY-MM-DD' });
    }
  }
  if (params.start_date && params.end_date && params.start_date > params.end_date) {
    issues.push({ path: 'start_date', message: `is after end_date (${params.end_date})` });
  }
  return issues;
}

/** `GET`/`PATCH` `/api/v1/transactions…`. Reached as `client.transactions`. */
export class TransactionsResource {
  readonly #client: ServiceClient;
  readonly #http: HttpClient;
  readonly #logger: ServiceLogger | undefined;

  /** @internal Created by `ServiceClient`; use `client.transactions`. */
  constructor(client: ServiceClient, http: HttpClient, logger: ServiceLogger | undefined) {
    this.#client = client;
    this.#http = http;
    this.#logger = logger;
  }

  /** `GET /api/v1/transactions/{id}`. */
  async get(id: string, options: CallOptions = {}): Promise<Transaction> {
    const path = this.#itemPath('GET', id);
    const response = await this.#http.requestJson({ method: 'GET', path, signal: options.signal });
    return parseBody(TransactionSchema, response);
  }

  /**
   * `PATCH /api/v1/transactions/{id}` with `{ "transaction": body }`. Only the members you set are
   * sent; the body is checked first, and nothing is sent when it is refused (`InvalidRequestError`).
   */
  async update(id: string, body: TransactionUpdate, options: CallOptions = {}): Promise<Transaction> {
    const path = this.#itemPath('PATCH', id);
    const members = buildUpdateBody(body, { method: 'PATCH', path: `/${path}` });
    if (members.currency !== undefined) {
      logTo(this.#logger, 'warn', 'currency is ignored by the service on update; sent anyway', {
        path: `/${path}`,
      });
    }
    const response = await this.#http.requestJson({
      method: 'PATCH',
      path,
      json: { transaction: members },
      signal: options.signal,
    });
    return parseBody(TransactionSchema, response);
  }

  /**
   * `GET /api/v1/transactions`, every page: `for await (const tx of client.transactions.list())`.
   * The parameters are checked when the call is made.
   */
  list(params: TransactionListParams = {}, options: CallOptions = {}): TransactionList {
    const issues = listIssues(params);
    if (issues.length > 0) {
      const first = issues[0]!;
      throw new InvalidRequestError(`refused to list transactions: ${first.path}: ${first.message}`, {
        method: 'GET',
        path: `/${API_PREFIX}/transactions`,
        issues,
      });
    }
    const { page: startPage = 1, ...filters } = params;
    const fetchPage = async (page: number): Promise<TransactionPage> => {
      const query = toQuery({ ...filters, page });
      const response = await this.#http.requestJson({
        method: 'GET',
        path: `${API_PREFIX}/transactions`,
        query,
        signal: options.signal,
      });
      return parseBody(TransactionPageSchema, response);
    };
    return createTransactionList(fetchPage, startPage);
  }

  #itemPath(method: string, id: string): string {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new InvalidRequestError(`refused to send ${method}: id must be a non-empty string`, {
        method,
        path: `/${API_PREFIX}/transactions/{id}`,
        issues: [{ path: 'id', message: 'must be a non-empty string' }],
      });
    }
    return `${API_PREFIX}/transactions/${encodeURIComponent(id)}`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#client.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `TransactionsResource { baseUrl: '${this.#client.baseUrl}' }`;
  }
}

function parseBody<S extends z.ZodType>(schema: S, response: JsonResponse): z.output<S> {
  const result = schema.safeParse(response.body);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, 10)
    .map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
  const first = issues[0];
  throw new InvalidResponseError(
    `unexpected response from ${response.method} ${response.path}${first ? `: ${first.path || '(body)'}: ${first.message}` : ''}`,
    { method: response.method, path: response.path, status: response.status, issues },
  );
}

/**
 * A typed client for the service's `/api/v1` (Sure's API; header `X-Api-Key`).
 *
 * ```ts
 * const client = new ServiceClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.SURE_API_KEY! });
 * for await (const tx of client.transactions.list({ start_date: '2026-05-01' })) console.log(tx.name);
 * await client.transactions.update(id, { notes: 'split with flatmate', tag_ids: [] });
 * ```
 */
export class ServiceClient {
  readonly baseUrl: string;
  readonly transactions: TransactionsResource;
  readonly #http: HttpClient;
  #rateLimit: RateLimitSnapshot | undefined;

  constructor(options: ServiceClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '' || /[\s]/.test(options.apiKey)) {
      throw new TypeError('ServiceClient needs an apiKey: a non-empty string without whitespace');
    }
    let root: URL;
    try {
      root = new URL(options.baseUrl);
    } catch {
      throw new TypeError(
        'ServiceClient needs a baseUrl: an absolute http(s) URL such as http://localhost:3000',
      );
    }
    if (root.protocol !== 'http:' && root.protocol !== 'https:') {
      throw new TypeError('ServiceClient needs an http(s) baseUrl');
    }
    root.search = '';
    root.hash = '';
    this.baseUrl = root
      .toString()
      .replace(/\/+$/, '')
      .replace(/\/api\/v1$/, '');
    const timeoutMs = options.timeoutMs ?? 30_000;
    const maxRetries = options.maxRetries ?? 2;
    const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number of milliseconds');
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new RangeError('maxRetries must be a non-negative integer');
    }
    if (!(maxRetryAfterMs >= 0)) throw new RangeError('maxRetryAfterMs must be a non-negative number');
    const fetchImpl = options.fetch;
    this.#http = new HttpClient({
      apiKey: options.apiKey,
      baseUrl: this.baseUrl,
      timeoutMs,
      maxRetries,
      maxRetryAfterMs,
      fetch: fetchImpl ?? ((input, init) => globalThis.fetch(input, init)),
      logger: options.logger,
      onRateLimit: (snapshot) => {
        this.#rateLimit = snapshot;
      },
    });
    this.transactions = new TransactionsResource(this, this.#http, options.logger);
  }

  /**
   * The rate-limit headers of the last response that had them (`undefined` before the first). A
   * self-hosted service reports `limit` and `remaining` as `Infinity`.
   */
  get rateLimit(): RateLimitSnapshot | undefined {
    return this.#rateLimit;
  }

  /**
   * Any other `/api/v1` endpoint, with the same key handling, errors and retry policy (GET as a read,
   * PATCH/PUT as an overwrite, POST/DELETE only on 429). Returns the parsed JSON, unchecked.
   */
  async request(options: RawRequestOptions): Promise<unknown> {
    const path = `${API_PREFIX}/${options.path.replace(/^\/+/, '')}`;
    const response = await this.#http.requestJson({
      method: options.method,
      path,
      query: toQuery(options.query),
      json: options.body,
      signal: options.signal,
    });
    return response.body;
  }

  /** Keeps the key out of `JSON.stringify` (it lives in private fields only). */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ServiceClient { baseUrl: '${this.baseUrl}' }`;
  }
}
