/**
 * The fake service's HTTP surface as one `Request → Response` function (no msw import): auth, the
 * per-key rate limit, index with filters and pagination, show, and update (service-api.md §3, §4, §6).
 */
import { resolveLocale } from './money.js';
import { renderTransaction } from './render.js';
import type { FakeApiKey, FakeRequestRecord, FakeServiceStore, FakeTransaction } from './store.js';
import { applyUpdate, castDate, castUuid, type FakeResult } from './update.js';

export interface FakeRateLimitOptions {
  /** Requests per window per key (the managed service allows 100 per clock hour). */
  limit: number;
  /** Window length; windows are aligned to the epoch like the service's hourly buckets. Default 3600. */
  windowSeconds?: number;
}

export interface FakeServiceOptions {
  /** The service root the handlers answer under. Default `http://localhost:3000`. */
  baseUrl?: string;
  /**
   * A per-key limit that answers 429 with `Retry-After` once exceeded. Default: none, as a
   * self-hosted service, whose headers read `Infinity` / `Infinity` / `0`.
   */
  rateLimit?: FakeRateLimitOptions;
}

export const DEFAULT_FAKE_BASE_URL = 'http://localhost:3000';

const UNAUTHORIZED = 'Access token or API key is invalid, expired, or missing';
const NOT_FOUND: FakeResult = { status: 404, body: { error: 'not_found', message: 'Transaction not found' } };
const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

function json(result: FakeResult, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(result.body), {
    status: result.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': crypto.randomUUID(),
      ...headers,
    },
  });
}

/** Ruby's `to_i`: the leading integer, else 0. */
function toI(value: string | null): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? 0 : parsed;
}

function authenticate(request: Request, store: FakeServiceStore): FakeApiKey | FakeResult {
  const authorization = request.headers.get('authorization');
  if (authorization && /^bearer\s/i.test(authorization)) {
    // OAuth is tried first and the fake has no tokens: a Bearer header always fails, even with a good key.
    return {
      status: 401,
      body: { error: 'unauthorized', message: 'Access token is invalid, expired, or missing required scope' },
    };
  }
  const key = store.apiKeys.get(request.headers.get('x-api-key') ?? '');
  if (!key || key.revoked) return { status: 401, body: { error: 'unauthorized', message: UNAUTHORIZED } };
  if (key.userDeactivated) {
    return { status: 401, body: { error: 'unauthorized', message: 'Account has been deactivated' } };
  }
  return key;
}

function listTransactions(store: FakeServiceStore, url: URL, locale: string): FakeResult {
  const query = url.searchParams;
  const page = Math.max(1, toI(query.get('page')));
  const perPageAsked = toI(query.get('per_page'));
  const perPage = perPageAsked >= 1 && perPageAsked <= 100 ? perPageAsked : 25;
  const accountId = query.get('account_id');
  const categoryId = query.get('category_id');
  const merchantId = query.get('merchant_id');
  // Unparseable dates are ignored rather than guessed at.
  const start = castDate(query.get('start_date') ?? '');
  const end = castDate(query.get('end_date') ?? '');
  const search = query.get('search')?.toLowerCase();
  const tagIds = [...query.getAll('tag_ids[]'), ...query.getAll('tag_ids')].filter((id) => id !== '');

  const rows = [...store.transactions.values()].filter((tx) => {
    const account = store.accounts.get(tx.account_id);
    if (!account || account.status === 'pending_deletion') return false;
    if (accountId && tx.account_id !== accountId) return false;
    if (categoryId && tx.category_id !== categoryId) return false;
    if (merchantId && tx.merchant_id !== merchantId) return false;
    if (start && tx.date < start) return false;
    if (end && tx.date > end) return false;
    if (search && !tx.name.toLowerCase().includes(search)) return false;
    if (tagIds.length > 0 && !tx.tag_ids.some((id) => tagIds.includes(id))) return false;
    return true;
  });
  rows.sort(
    (a, b) =>
      b.date.localeCompare(a.date) || b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
  );
  const slice = rows.slice((page - 1) * perPage, page * perPage);
  return {
    status: 200,
    body: {
      transactions: slice.map((tx) => renderTransaction(store, tx, locale)),
      pagination: {
        page,
        per_page: perPage,
        total_count: rows.length,
        total_pages: Math.max(1, Math.ceil(rows.length / perPage)),
      },
    },
  };
}

function findTransaction(store: FakeServiceStore, id: string): FakeTransaction | undefined {
  const uuid = castUuid(decodeURIComponent(id));
  return uuid === null ? undefined : store.transactions.get(uuid);
}

/**
 * Answers `request` like the service, or returns `undefined` for a route the fake does not serve
 * (so MSW reports it as unhandled). Every answered request is recorded in `store.requests`.
 */
export async function handleServiceRequest(
  store: FakeServiceStore,
  request: Request,
  options: FakeServiceOptions = {},
): Promise<Response | undefined> {
  const url = new URL(request.url);
  const root = new URL(options.baseUrl ?? DEFAULT_FAKE_BASE_URL);
  const rootPath = root.pathname.replace(/\/+$/, '');
  if (url.origin !== root.origin || !url.pathname.startsWith(`${rootPath}/`)) return undefined;
  const route = /^\/api\/v1\/transactions(?:\/([^/]+?))?(?:\.json)?\/?$/.exec(
    url.pathname.slice(rootPath.length),
  );
  const method = request.method.toUpperCase();
  if (!route) return undefined;
  const id = route[1];
  if (id === undefined ? method !== 'GET' : !['GET', 'PATCH', 'PUT'].includes(method)) return undefined;

  const record: FakeRequestRecord = { method, path: `${url.pathname}${url.search}`, status: 0 };
  store.requests.push(record);
  const respond = (result: FakeResult, headers?: Record<string, string>) => {
    record.status = result.status;
    return json(result, headers);
  };

  // Rails parses a JSON body before any controller code runs.
  let body: unknown;
  if (method !== 'GET') {
    const text = await request.text();
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
        record.body = body;
      } catch {
        return respond({ status: 400, body: { status: 400, error: 'Bad Request' } });
      }
    }
  }

  const key = authenticate(request, store);
  if ('status' in key) return respond(key); // 401s carry no rate-limit headers and use no quota

  const limit = options.rateLimit;
  let headers: Record<string, string>;
  if (limit) {
    const windowSeconds = limit.windowSeconds ?? 3600;
    const { used, resetSeconds } = store.rateWindow(key.key, windowSeconds, false);
    if (used >= limit.limit) {
      const reset = String(resetSeconds);
      return respond(
        {
          status: 429,
          body: {
            error: 'rate_limit_exceeded',
            message: `Rate limit exceeded. Try again in ${reset} seconds.`,
            details: { limit: limit.limit, current: used, reset_in_seconds: resetSeconds },
          },
        },
        {
          'x-ratelimit-limit': String(limit.limit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': reset,
          'retry-after': reset,
        },
      );
    }
    store.rateWindow(key.key, windowSeconds, true);
    headers = {
      'x-ratelimit-limit': String(limit.limit),
      'x-ratelimit-remaining': String(limit.limit - used - 1),
      'x-ratelimit-reset': String(resetSeconds),
    };
  } else {
    headers = {
      'x-ratelimit-limit': 'Infinity',
      'x-ratelimit-remaining': 'Infinity',
      'x-ratelimit-reset': '0',
    };
  }

  // Scope before lookup: a read-only key gets 403 even for an id that does not exist.
  if (WRITE_METHODS.has(method) && key.scope !== 'read_write') {
    return respond(
      {
        status: 403,
        body: { error: 'insufficient_scope', message: "This action requires the 'write' scope" },
      },
      headers,
    );
  }
  const locale = resolveLocale(url.searchParams.get('locale'), request.headers.get('accept-language'));
  if (id === undefined) return respond(listTransactions(store, url, locale), headers);
  const tx = findTransaction(store, id);
  if (!tx) return respond(NOT_FOUND, headers);
  if (method === 'GET') return respond({ status: 200, body: renderTransaction(store, tx, locale) }, headers);

  // The update is all-or-nothing: work on a copy, keep it only on success.
  const draft: FakeTransaction = structuredClone(tx);
  const result = applyUpdate(store, draft, body, locale);
  if (result.status === 200) store.transactions.set(tx.id, Object.assign(tx, draft));
  return respond(result, headers);
}
