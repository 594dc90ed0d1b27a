/**
 * The fake service's HTTP surface as one `Request → Response` function (no msw import): routing, auth,
 * the per-key rate limit and the write scope, in the service's order (Sure's `Api::V1::BaseController`); then
 * index, show, create, update, delete, finsync's restore and deleted list, and the lookup routes
 * (accounts, categories, merchants, tags; `POST /api/v1/tags`).
 */
import { castUuid, type FakeResult } from './cast.js';
import { applyCreate } from './create.js';
import { applyDelete, applyRestore } from './delete.js';
import { listDeletedTransactions, listTransactions } from './list.js';
import { resolveLocale } from './money.js';
import { renderTransaction } from './render.js';
import { applyCreateTag, listAccounts, listCategories, listMerchants, listTags } from './resources.js';
import type { FakeApiKey, FakeRequestRecord, FakeServiceStore, FakeTransaction } from './store.js';
import { applyUpdate } from './update.js';

/** The fake's per-key rate limit, for `FakeServiceOptions.rateLimit`: at most `limit` requests a window. */
export interface FakeRateLimitOptions {
  /** Requests per window per key (the managed service allows 100 per clock hour). */
  limit: number;
  /** Window length; windows are aligned to the epoch like the service's hourly buckets. Default 3600. */
  windowSeconds?: number | undefined;
}

/** Options of `createServiceHandlers` and `handleServiceRequest`: where the fake answers, and its rate limit. */
export interface FakeServiceOptions {
  /** The service root the handlers answer under. Default `http://localhost:3000`. */
  baseUrl?: string | undefined;
  /**
   * A per-key limit that answers 429 with `Retry-After` once exceeded. Default: none, as a
   * self-hosted service, whose headers read `Infinity` / `Infinity` / `0`.
   */
  rateLimit?: FakeRateLimitOptions | undefined;
}

/** The service root the fake answers under when no `baseUrl` is given: a local service's usual address. */
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

type Lookup = 'accounts' | 'categories' | 'merchants' | 'tags';

type Route =
  | { kind: 'lookup'; resource: Lookup }
  | { kind: 'create-tag' }
  | { kind: 'collection' }
  | { kind: 'deleted' }
  | { kind: 'item'; id: string }
  | { kind: 'restore'; id: string };

const ROUTE = /^\/api\/v1\/transactions(?:\/([^/]+?)(?:\/(restore))?)?(?:\.json)?\/?$/;
const LOOKUP = /^\/api\/v1\/(accounts|categories|merchants|tags)(?:\.json)?\/?$/;

/** The route `method path` names, or `undefined` for one the fake does not serve. */
function matchRoute(method: string, path: string): Route | undefined {
  const lookup = LOOKUP.exec(path);
  if (lookup) {
    const resource = lookup[1] as Lookup;
    if (method === 'GET') return { kind: 'lookup', resource };
    // Sure also has POST categories and merchants (a CSV import); the fake leaves them unhandled.
    return method === 'POST' && resource === 'tags' ? { kind: 'create-tag' } : undefined;
  }
  const match = ROUTE.exec(path);
  if (!match) return undefined;
  const [, id, restore] = match;
  if (id === undefined) return method === 'GET' || method === 'POST' ? { kind: 'collection' } : undefined;
  if (restore) return method === 'POST' ? { kind: 'restore', id } : undefined;
  // finsync's collection route is declared before the item routes, as in the reference server.
  if (id === 'deleted' && method === 'GET') return { kind: 'deleted' };
  return ['GET', 'PATCH', 'PUT', 'DELETE'].includes(method) ? { kind: 'item', id } : undefined;
}

/** A transaction in the key's scope, by the id in the path (cast like the uuid column). */
function findIn(
  rows: Map<string, FakeTransaction>,
  store: FakeServiceStore,
  key: FakeApiKey,
  id: string,
): FakeTransaction | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(id);
  } catch {
    return undefined;
  }
  const uuid = castUuid(decoded);
  const tx = uuid === null ? undefined : rows.get(uuid);
  return tx && store.canAccess(key, tx.account_id) ? tx : undefined;
}

function lookup(store: FakeServiceStore, key: FakeApiKey, resource: Lookup, url: URL, locale: string) {
  if (resource === 'accounts') return listAccounts(store, key, url, locale);
  if (resource === 'categories') return listCategories(store, url);
  return resource === 'merchants' ? listMerchants(store, key) : listTags(store);
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
  const method = request.method.toUpperCase();
  const route = matchRoute(method, url.pathname.slice(rootPath.length));
  if (!route) return undefined;

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
    // The tags controller asks for the scope by its stored name; the others ask for "write".
    const scope = route.kind === 'create-tag' ? 'read_write' : 'write';
    return respond(
      {
        status: 403,
        body: { error: 'insufficient_scope', message: `This action requires the '${scope}' scope` },
      },
      headers,
    );
  }
  const locale = resolveLocale(url.searchParams.get('locale'), request.headers.get('accept-language'));
  const answer = (result: FakeResult) => respond(result, headers);
  switch (route.kind) {
    case 'lookup':
      return answer(lookup(store, key, route.resource, url, locale));
    case 'create-tag':
      return answer(applyCreateTag(store, body));
    case 'collection':
      return answer(
        method === 'GET' ? listTransactions(store, key, url, locale) : applyCreate(store, body, locale, key),
      );
    case 'deleted':
      return answer(listDeletedTransactions(store, key, url, locale));
    case 'restore': {
      const deleted = findIn(store.deletedTransactions, store, key, route.id);
      return answer(deleted ? applyRestore(store, deleted, locale) : NOT_FOUND);
    }
    case 'item':
      break;
  }
  const tx = findIn(store.transactions, store, key, route.id);
  if (!tx) return answer(NOT_FOUND);
  if (method === 'GET') return answer({ status: 200, body: renderTransaction(store, tx, locale) });
  if (method === 'DELETE') return answer(applyDelete(store, tx));

  // The update is all-or-nothing: work on a copy, keep it only on success.
  const draft: FakeTransaction = structuredClone(tx);
  const result = applyUpdate(store, draft, body, locale);
  if (result.status === 200) store.transactions.set(tx.id, Object.assign(tx, draft));
  return answer(result);
}
