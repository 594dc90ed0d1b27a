import { buildCreateBody } from './create-body.js';
import { InvalidRequestError, type Issue } from './errors.js';
import { HttpClient } from './http.js';
import {
  MAX_TIMER_MS,
  apiKeyFault,
  checkedFetch,
  checkedLogger,
  checkedMaxRetries,
  checkedMs,
  checkedSignal,
  logTo,
  shown,
} from '@finsync/internals/http';
import type { ServiceLogger } from './logger.js';
import { createTransactionList, type TransactionList, type TransactionPage } from './pagination.js';
import {
  NOT_AN_OBJECT,
  isParamsObject,
  listIssues,
  pageIssues,
  queryLengthIssues,
  refuseParams,
  toQuery,
  unknownIssues,
  type QueryValue,
} from './params.js';
import { LIMITS, count } from './limits.js';
import { parseBody } from './parse-body.js';
import { checkRequest } from './raw-request.js';
import { AccountsResource, CategoriesResource, MerchantsResource, TagsResource } from './resources.js';
import type { RateLimitSnapshot } from './rate-limit.js';
import {
  TransactionDeleteResultSchema,
  TransactionPageSchema,
  TransactionSchema,
  type Transaction,
  type TransactionCreate,
  type TransactionCreateResult,
  type TransactionDeleteResult,
  type TransactionDeletedListParams,
  type TransactionListParams,
  type TransactionUpdate,
} from './schemas.js';
import { isWellFormedText } from './text.js';
import { buildUpdateBody } from './update-body.js';

export type { QueryValue } from './params.js';

/**
 * What `new ServiceClient(…)` takes. `baseUrl` and `apiKey` are required; the rest have defaults meant
 * for a real service (in tests, spread `testClientOptions` from `@finsync/service/msw`). Every option is
 * checked when the client is made, and a bad one throws a `TypeError` or `RangeError` naming it.
 */
export interface ServiceClientOptions {
  /** The service root, e.g. `http://localhost:3000`; paths are `/api/v1/…`. A trailing `/api/v1` is dropped. */
  baseUrl: string;
  /** The API key. Sent as `X-Api-Key`; never logged, never kept on errors, hidden from inspect/JSON. */
  apiKey: string;
  /**
   * Milliseconds per attempt, for the response headers and then for any pause in the body; a retried
   * call can take longer in total. 1 to 2^31 − 1. Default 30 000.
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt (see the README's retry policy), 0 to 10. Default 2. */
  maxRetries?: number | undefined;
  /**
   * The longest server-requested wait (`Retry-After`, …) a call sleeps through before retrying. A
   * longer one throws `RateLimitError` with `retryAfterMs` at once, so the caller can reschedule.
   * 0 to 2^31 − 1 ms; default 60 000 ms.
   */
  maxRetryAfterMs?: number | undefined;
  /**
   * A `fetch` implementation (a function); default `globalThis.fetch` (looked up per call, so MSW
   * sees it).
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** An object with any of `debug`, `info`, `warn`, `error` (each a function), e.g. `console`. */
  logger?: ServiceLogger | undefined;
}

/** Options every `ServiceClient` call takes. */
export interface CallOptions {
  /** Aborts the call; anything but an `AbortSignal` (or `undefined`) is a `TypeError`, nothing sent. */
  signal?: AbortSignal | undefined;
}

/**
 * What `ServiceClient.request()` takes: a request to any `/api/v1/` endpoint the typed calls do not
 * cover, sent with the same key, errors and retry policy, its body and answer unchecked.
 */
export interface RawRequestOptions extends CallOptions {
  /** The HTTP method, any case; other methods are refused (`InvalidRequestError`, `member: 'method'`). */
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /**
   * Below `/api/v1/`, e.g. `categories` or `transactions/…` (segments are sent as given). A path
   * that would leave `/api/v1/` (`..` segments, encoded or not, `//host`, a scheme) is refused.
   */
  path: string;
  /** Arrays are sent Rails-style as `name[]=a&name[]=b`. */
  query?: Record<string, QueryValue> | undefined;
  /** Sent as JSON, unchecked. */
  body?: unknown | undefined;
}

const API_PREFIX = 'api/v1';

/**
 * `/api/v1/transactions…`: get, list, create, update, delete, and finsync's restore and listDeleted.
 * Reached as `client.transactions`.
 */
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
   * `POST /api/v1/transactions` with `{ "transaction": body }`. The body is checked first; nothing is
   * sent when it is refused (`InvalidRequestError`). With `external_id` the create is idempotent: a
   * repeat for the same account, `external_id` and `source` answers 200 with the row made the first
   * time (`created: false`, nothing new is stored), and the call is retried like an update. Without
   * it, it is never repeated once the request may have reached the service.
   */
  async create(body: TransactionCreate, options: CallOptions = {}): Promise<TransactionCreateResult> {
    const path = `${API_PREFIX}/transactions`;
    const members = buildCreateBody(body, { method: 'POST', path: `/${path}` });
    const response = await this.#http.requestJson({
      method: 'POST',
      path,
      json: { transaction: members },
      signal: options.signal,
      retryClass: members.external_id === undefined ? 'once' : 'idempotent',
    });
    return { created: response.status === 201, transaction: parseBody(TransactionSchema, response) };
  }

  /**
   * `PATCH /api/v1/transactions/{id}` with `{ "transaction": body }`. Only the members you set are
   * sent; the body is checked first, and nothing is sent when it is refused (`InvalidRequestError`).
   * A category or merchant set together with `tag_ids` (even `[]`) goes in two PATCHes, the tags
   * last, so the service locks both against its bank syncs (README, "Updating a transaction").
   */
  async update(id: string, body: TransactionUpdate, options: CallOptions = {}): Promise<Transaction> {
    const path = this.#itemPath('PATCH', id);
    const members = buildUpdateBody(body, { method: 'PATCH', path: `/${path}` });
    if (members.currency !== undefined) {
      logTo(this.#logger, 'warn', 'currency is ignored by the service on update; sent anyway', {
        path: `/${path}`,
      });
    }
    // The service does not lock a category or merchant set in the same PATCH as tags (service-api.md,
    // "Quirk"), so the next bank sync would overwrite it: they go first, the tags in a PATCH of their own.
    // An empty list too: the service saves the tags whenever the key is sent, and that save is what
    // resets the changes it would lock.
    const { tag_ids: tagIds, ...rest } = members;
    if (tagIds !== undefined && (rest.category_id !== undefined || rest.merchant_id !== undefined)) {
      await this.#patch(path, rest, options.signal);
      return this.#patch(path, { tag_ids: tagIds }, options.signal);
    }
    return this.#patch(path, members, options.signal);
  }

  async #patch(
    path: string,
    members: Partial<TransactionUpdate>,
    signal: AbortSignal | undefined,
  ): Promise<Transaction> {
    const response = await this.#http.requestJson({
      method: 'PATCH',
      path,
      json: { transaction: members },
      signal,
    });
    return parseBody(TransactionSchema, response);
  }

  /**
   * `DELETE /api/v1/transactions/{id}` → `{ message }`. Retried only on 429: a repeat after the
   * request may have reached the service would answer 404 for the row this call deleted.
   */
  async delete(id: string, options: CallOptions = {}): Promise<TransactionDeleteResult> {
    const path = this.#itemPath('DELETE', id);
    const response = await this.#http.requestJson({ method: 'DELETE', path, signal: options.signal });
    return { message: parseBody(TransactionDeleteResultSchema, response).message };
  }

  /**
   * `POST /api/v1/transactions/{id}/restore` — a finsync extension (the reference server has it;
   * Sure does not): brings a deleted transaction back and returns it. 404 when `id` is not a deleted
   * transaction of yours. Retried only on 429, like `delete`.
   */
  async restore(id: string, options: CallOptions = {}): Promise<Transaction> {
    const path = `${this.#itemPath('POST', id)}/restore`;
    const response = await this.#http.requestJson({ method: 'POST', path, signal: options.signal });
    return parseBody(TransactionSchema, response);
  }

  /**
   * `GET /api/v1/transactions`, every page: `for await (const tx of client.transactions.list())`.
   * The parameters are checked when the call is made.
   */
  list(params: TransactionListParams = {}, options: CallOptions = {}): TransactionList {
    this.#checkParams(listIssues(params), 'list transactions', 'transactions');
    checkedSignal(options.signal);
    return this.#pages('transactions', params, options);
  }

  /**
   * `GET /api/v1/transactions/deleted` — a finsync extension (the reference server has it; Sure does
   * not): the deleted transactions, most recently deleted first, paged like `list()`.
   */
  listDeleted(params: TransactionDeletedListParams = {}, options: CallOptions = {}): TransactionList {
    const issues: Issue[] = isParamsObject(params)
      ? [...unknownIssues(params, ['page', 'per_page'], 'the deleted list'), ...pageIssues(params)]
      : [NOT_AN_OBJECT];
    this.#checkParams(issues, 'list deleted transactions', 'transactions/deleted');
    checkedSignal(options.signal);
    return this.#pages('transactions/deleted', params, options);
  }

  #checkParams(issues: Issue[], what: string, route: string): void {
    refuseParams(issues, what, `/${API_PREFIX}/${route}`);
  }

  #pages(
    route: string,
    params: TransactionListParams | TransactionDeletedListParams,
    options: CallOptions,
  ): TransactionList {
    const { page: startPage = 1, ...given } = params as { page?: number } & Record<string, QueryValue>;
    // Copied as checked: a list the caller changes later does not change the pages still to come.
    const filters = Object.fromEntries(
      Object.entries(given).map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]),
    ) as Record<string, QueryValue>;
    refuseParams(queryLengthIssues(filters), 'list transactions', `/${API_PREFIX}/${route}`);
    const fetchPage = async (page: number): Promise<TransactionPage> => {
      const response = await this.#http.requestJson({
        method: 'GET',
        path: `${API_PREFIX}/${route}`,
        query: toQuery({ ...filters, page }),
        signal: options.signal,
      });
      return parseBody(TransactionPageSchema, response);
    };
    return createTransactionList(fetchPage, startPage, `/${API_PREFIX}/${route}`);
  }

  #itemPath(method: string, id: string): string {
    // An empty id would address the index, and so would "." or ".." (URL-encoding keeps them, and
    // a URL resolves them); a lone surrogate cannot be URL-encoded (URIError).
    const problem =
      typeof id !== 'string' || id.trim() === ''
        ? 'must be a non-empty string'
        : id.length > LIMITS.id
          ? `must be at most ${count(LIMITS.id)} characters (it has ${count(id.length)})`
          : id === '.' || id === '..'
            ? 'must not be "." or ".." (the URL would address another resource)'
            : isWellFormedText(id)
              ? undefined
              : 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)';
    if (problem) {
      throw new InvalidRequestError(`refused to send ${method}: id ${problem}`, {
        method,
        path: `/${API_PREFIX}/transactions/{id}`,
        issues: [{ path: 'id', message: problem }],
      });
    }
    return `${API_PREFIX}/transactions/${encodeURIComponent(id)}`;
  }

  /** Keeps the client's key out of `JSON.stringify`: only `baseUrl` is shown. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#client.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `TransactionsResource { baseUrl: '${this.#client.baseUrl}' }`;
  }
}

/** `timeoutMs`: a finite number of milliseconds from 1 to 2^31 − 1 (a longer one fails every call). */
function checkTimeout(value: unknown, apiKey: string): number {
  if (typeof value !== 'number') {
    const seen = typeof value === 'string' ? ` ${shown(value, apiKey)}` : '';
    throw new TypeError(`timeoutMs must be a number of milliseconds, got ${typeof value}${seen}`);
  }
  if (!Number.isFinite(value) || value < 1 || value > MAX_TIMER_MS) {
    throw new RangeError(
      `timeoutMs must be a finite number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${String(value)}`,
    );
  }
  return value;
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
  /** The service root in use, without a trailing `/` or `/api/v1`; safe to log. */
  readonly baseUrl: string;
  /** `/api/v1/transactions`: get, list, create, update, delete, and finsync's restore and listDeleted. */
  readonly transactions: TransactionsResource;
  /** `GET /api/v1/accounts` (paged). */
  readonly accounts: AccountsResource;
  /** `GET /api/v1/categories` (paged). */
  readonly categories: CategoriesResource;
  /** `GET /api/v1/merchants`. */
  readonly merchants: MerchantsResource;
  /** `GET` and `POST /api/v1/tags`. */
  readonly tags: TagsResource;
  readonly #http: HttpClient;
  #rateLimit: RateLimitSnapshot | undefined;

  constructor(options: ServiceClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '' || /[\s]/.test(options.apiKey)) {
      throw new TypeError('ServiceClient needs an apiKey: a non-empty string without whitespace');
    }
    if (apiKeyFault(options.apiKey) === 'past U+00FF') {
      throw new TypeError(
        'ServiceClient: the apiKey contains a character no HTTP header can carry (pasted with a curly quote or an emoji?)',
      );
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
    if (root.username !== '' || root.password !== '') {
      // Not echoed: the password is a secret. fetch refuses such a URL anyway, on every call.
      throw new TypeError(
        `ServiceClient's baseUrl must not hold a user name or password (${root.origin}); authenticate with apiKey`,
      );
    }
    root.search = '';
    root.hash = '';
    this.baseUrl = root
      .toString()
      .replace(/\/+$/, '')
      .replace(/\/api\/v1$/, '');
    const timeoutMs = checkTimeout(options.timeoutMs ?? 30_000, options.apiKey);
    const maxRetries = checkedMaxRetries(options.maxRetries ?? 2, options.apiKey);
    const maxRetryAfterMs = checkedMs(
      'maxRetryAfterMs',
      options.maxRetryAfterMs ?? 60_000,
      'zero allowed',
      options.apiKey,
    );
    const logger = checkedLogger(options.logger, options.apiKey);
    this.#http = new HttpClient({
      apiKey: options.apiKey,
      baseUrl: this.baseUrl,
      timeoutMs,
      maxRetries,
      maxRetryAfterMs,
      fetch: checkedFetch(options.fetch, options.apiKey),
      logger,
      onRateLimit: (snapshot) => {
        this.#rateLimit = snapshot;
      },
    });
    this.transactions = new TransactionsResource(this, this.#http, logger);
    this.accounts = new AccountsResource(this.#http);
    this.categories = new CategoriesResource(this.#http);
    this.merchants = new MerchantsResource(this.#http);
    this.tags = new TagsResource(this.#http);
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
    const { method, path, query } = checkRequest(options, this.baseUrl);
    const response = await this.#http.requestJson({
      method,
      path,
      query,
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
