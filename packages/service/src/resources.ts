/**
 * The lookup resources, so nobody needs the untyped `request()` to find an id: `client.accounts`,
 * `client.categories`, `client.merchants`, `client.tags`.
 */
import { checkedSignal } from '@finsync/internals/http';
import type { z } from 'zod';
import type { CallOptions } from './client.js';
import type { Issue } from './errors.js';
import type { HttpClient } from './http.js';
import { createPagedList, type AccountList, type CategoryList } from './pagination.js';
import {
  NOT_AN_OBJECT,
  booleanIssue,
  isParamsObject,
  pageIssues,
  refuseParams,
  toQuery,
  unknownIssues,
  uuidIssue,
  type QueryValue,
} from './params.js';
import { PageWalk } from './page-walk.js';
import { parseBody } from './parse-body.js';
import { collectMembers, parseMembers } from './request-body.js';
import {
  AccountPageSchema,
  CategoryPageSchema,
  MerchantListSchema,
  TagCreateSchema,
  TagListSchema,
  type Merchant,
  type Tag,
  type TagCreate,
} from './resource-schemas.js';
import { TagSchema, type Pagination } from './schemas.js';

const API_PREFIX = 'api/v1';

/** `client.accounts.list()` parameters. */
export interface AccountListParams {
  /** First page to fetch, 1 or more (default 1); the list walks on from it. */
  page?: number | undefined;
  /** 1–100 (default 25). */
  per_page?: number | undefined;
  /** Also list `disabled` (and `pending_deletion`) accounts; by default only `draft`/`active` ones. */
  include_disabled?: boolean | undefined;
}

/** `client.categories.list()` parameters. */
export interface CategoryListParams {
  /** First page to fetch, 1 or more (default 1); the list walks on from it. */
  page?: number | undefined;
  /** 1–100 (default 25). */
  per_page?: number | undefined;
  /** Only top-level categories (no parent). */
  roots_only?: boolean | undefined;
  /** Only the subcategories of this category (a UUID). */
  parent_id?: string | undefined;
}

/**
 * Checks `route`'s list params before anything is sent: only the names `known` (the service ignores
 * others silently), `page`/`per_page` in range, plus the per-name checks in `extra`.
 */
function checkParams(
  route: string,
  params: unknown,
  known: readonly string[],
  extra: (params: Record<string, unknown>) => Issue[],
): void {
  const issues = isParamsObject(params)
    ? [...unknownIssues(params, known, `the ${route} list`), ...pageIssues(params), ...extra(params)]
    : [NOT_AN_OBJECT];
  refuseParams(issues, `list ${route}`, `/${API_PREFIX}/${route}`);
}

/** Every page of an index answered as `{ items, pagination }` (see the schemas), from page 1. */
async function collectAll<Item extends { id: string }>(
  http: HttpClient,
  route: string,
  schema: z.ZodType<{ items: Item[]; pagination: Pagination | null }>,
  signal: AbortSignal | undefined,
): Promise<Item[]> {
  const all: Item[] = [];
  const walk = new PageWalk(`/${API_PREFIX}/${route}`);
  for (let page = 1; ; page += 1) {
    // Sure does not page this index: the first request carries no `page`, exactly as Sure's own clients.
    const query = page === 1 ? undefined : toQuery({ page });
    const response = await http.requestJson({ method: 'GET', path: `${API_PREFIX}/${route}`, query, signal });
    const { items, pagination } = parseBody(schema, response);
    // Past the end, a Pagy server answers the last page again (already collected).
    if (walk.pastTheEnd(page, pagination)) return all;
    walk.rows(
      page,
      items.map((item) => item.id),
    );
    all.push(...items);
    if (!pagination || items.length === 0 || page >= pagination.total_pages) return all;
  }
}

/** `/api/v1/accounts`: the accounts the key's user can access. Reached as `client.accounts`. */
export class AccountsResource {
  readonly #http: HttpClient;

  /** @internal Created by `ServiceClient`; use `client.accounts`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * `GET /api/v1/accounts`, every page, alphabetical by name: `for await (const a of client.accounts.list())`.
   * The parameters are checked when the call is made.
   */
  list(params: AccountListParams = {}, options: CallOptions = {}): AccountList {
    checkParams('accounts', params, ['page', 'per_page', 'include_disabled'], (p) =>
      booleanIssue('include_disabled', p.include_disabled),
    );
    checkedSignal(options.signal);
    const { page: startPage = 1, ...filters } = params;
    const fetchPage = async (page: number) =>
      parseBody(
        AccountPageSchema,
        await this.#http.requestJson({
          method: 'GET',
          path: `${API_PREFIX}/accounts`,
          query: toQuery({ ...(filters as Record<string, QueryValue>), page }),
          signal: options.signal,
        }),
      );
    return createPagedList(fetchPage, startPage, {
      items: (page) => page.accounts,
      pagination: (page) => page.pagination,
      id: (account) => account.id,
      noun: 'accounts',
      path: `/${API_PREFIX}/accounts`,
    });
  }
}

/** `/api/v1/categories`: the family's categories. Reached as `client.categories`. */
export class CategoriesResource {
  readonly #http: HttpClient;

  /** @internal Created by `ServiceClient`; use `client.categories`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** `GET /api/v1/categories`, every page, alphabetical by name. Parameters are checked at once. */
  list(params: CategoryListParams = {}, options: CallOptions = {}): CategoryList {
    checkParams('categories', params, ['page', 'per_page', 'roots_only', 'parent_id'], (p) => [
      ...booleanIssue('roots_only', p.roots_only),
      ...uuidIssue('parent_id', p.parent_id),
    ]);
    checkedSignal(options.signal);
    const { page: startPage = 1, ...filters } = params;
    const fetchPage = async (page: number) =>
      parseBody(
        CategoryPageSchema,
        await this.#http.requestJson({
          method: 'GET',
          path: `${API_PREFIX}/categories`,
          query: toQuery({ ...(filters as Record<string, QueryValue>), page }),
          signal: options.signal,
        }),
      );
    return createPagedList(fetchPage, startPage, {
      items: (page) => page.categories,
      pagination: (page) => page.pagination,
      id: (category) => category.id,
      noun: 'categories',
      path: `/${API_PREFIX}/categories`,
    });
  }
}

/** `/api/v1/merchants`. Reached as `client.merchants`. */
export class MerchantsResource {
  readonly #http: HttpClient;

  /** @internal Created by `ServiceClient`; use `client.merchants`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * `GET /api/v1/merchants`: the family's merchants, plus the provider merchants of transactions in
   * accounts the key's user can access; alphabetical. Sure sends them all in one response.
   */
  list(options: CallOptions = {}): Promise<Merchant[]> {
    return collectAll(this.#http, 'merchants', MerchantListSchema, options.signal);
  }
}

const TAG_NULL_MEANING: Record<string, string> = {
  color: 'null makes the service pick a random color; leave color out for the default #e99537',
};

/** `/api/v1/tags`. Reached as `client.tags`. */
export class TagsResource {
  readonly #http: HttpClient;

  /** @internal Created by `ServiceClient`; use `client.tags`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** `GET /api/v1/tags`: the family's tags, alphabetical. Sure sends them all in one response. */
  list(options: CallOptions = {}): Promise<Tag[]> {
    return collectAll(this.#http, 'tags', TagListSchema, options.signal);
  }

  /**
   * `POST /api/v1/tags` with `{ "tag": { name, color? } }` → the new tag (201). The body is checked
   * first (`InvalidRequestError`, nothing sent). A name the family already has is a 422
   * (`ValidationError`). Retried only on 429: a repeat after the tag was made would answer 422.
   */
  async create(body: TagCreate, options: CallOptions = {}): Promise<Tag> {
    const path = `${API_PREFIX}/tags`;
    const context = { method: 'POST', path: `/${path}` };
    const members = collectMembers(
      body,
      context,
      'tag to create',
      (name) => TAG_NULL_MEANING[name] ?? 'null means "not set"; leave the member out',
    );
    parseMembers(
      TagCreateSchema.strict(),
      members,
      context,
      'not a member of a tag (only name and color; the service would ignore it)',
    );
    const response = await this.#http.requestJson({
      method: 'POST',
      path,
      json: { tag: members },
      signal: options.signal,
      retryClass: 'once',
    });
    return parseBody(TagSchema, response);
  }
}
