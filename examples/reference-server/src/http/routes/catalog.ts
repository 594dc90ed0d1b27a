/**
 * The lists a client needs to find ids: accounts, categories, merchants and tags (and creating a
 * tag), in the service's shapes (render-lookups.ts): the accounts and categories paged, the merchants
 * and tags a bare array.
 */
import { randomUUID } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ServerRuntime } from '../../runtime.js';
import { ApiProblem } from '../../problem.js';
import type { AppEnv } from '../env.js';
import { wellFormedJson } from '../middleware/well-formed.js';
import {
  AUTH_ERRORS,
  AccountPageSchema,
  CategoryPageSchema,
  MerchantSchema,
  TagSchema,
  JSON_BODY_ERRORS,
  WRITE_ERRORS_UNDONE_ON_503,
  err,
  ok,
} from '../responses.js';
import { AccountPageQuery, PageQuery, TagCreateBody } from '../schemas.js';
import { pageAsTheService, servicePage } from '../../pages.js';
import {
  isVisibleAccount,
  renderAccount,
  renderCategory,
  renderMerchant,
  renderTag,
} from '../../render-lookups.js';
import { MAX_TAGS_PER_USER } from '../../store/types.js';
import { mountRoute } from '../route.js';

type RequireKey = (scope: 'read' | 'write') => MiddlewareHandler<AppEnv>;
const security = [{ ApiKey: [] }];

/** Rails' boolean cast of a query value: blank is unset; `0`, `f`, `false`, `off` (any case) are false. */
const railsBoolean = z
  .string()
  .max(16)
  .transform((text) => text.trim() !== '' && !['0', 'f', 'false', 'off'].includes(text.trim().toLowerCase()));

const CategoryListQuery = PageQuery.extend({
  roots_only: railsBoolean.optional().openapi({
    description: 'Only categories without a parent: every category here',
    example: 'true',
  }),
  parent_id: z.string().max(200).optional().openapi({
    description: "Only this category's subcategories: none here (categories have no parents on this server)",
  }),
});

const AccountListQuery = AccountPageQuery.extend({
  include_disabled: railsBoolean.optional().openapi({
    description: 'Also list the accounts this server no longer syncs (`status` `disabled`)',
    example: 'true',
  }),
});

/** A page of a list held whole in memory (a user's accounts and categories are few), as the service pages it. */
function pageOf<Row>(rows: Row[], query: { page?: number | undefined; per_page?: number | undefined }) {
  const { page, perPage } = servicePage(query);
  return pageAsTheService(page, perPage, async ({ limit, offset }) => ({
    total: rows.length,
    rows: rows.slice(offset, offset + limit),
  }));
}

export function catalogRoutes(app: OpenAPIHono<AppEnv>, runtime: ServerRuntime, requireKey: RequireKey) {
  const { store } = runtime;
  const get = (
    path: string,
    tag: string,
    summary: string,
    description: string,
    body: z.ZodType,
    query?: z.ZodObject,
  ) =>
    createRoute({
      method: 'get',
      path,
      tags: [tag],
      summary,
      description,
      security,
      middleware: [requireKey('read')],
      ...(query ? { request: { query } } : {}),
      responses: {
        200: ok(body, summary),
        ...(query ? { 400: err('A page or page size that is not a whole number') } : {}),
        ...AUTH_ERRORS,
      },
    });

  mountRoute(
    app,
    get(
      '/api/v1/accounts',
      'Accounts',
      'The accounts, by name, a page at a time',
      'As the service: `{accounts, pagination}`, 25 a page unless `per_page` (1–100) says otherwise; only the accounts this server syncs unless `include_disabled`.',
      AccountPageSchema,
      AccountListQuery,
    ),
    async (c) => {
      const query = c.req.valid('query' as never) as z.output<typeof AccountListQuery>;
      const accounts = (await store.listAccounts(c.get('principal').userId)).filter(
        (account) => query.include_disabled === true || isVisibleAccount(account),
      );
      const { rows, pagination } = await pageOf(accounts, query);
      return c.json({ accounts: rows.map(renderAccount), pagination } as never, 200);
    },
  );
  mountRoute(
    app,
    get(
      '/api/v1/categories',
      'Categories',
      'The categories, by name, a page at a time',
      'As the service: `{categories, pagination}`, 25 a page unless `per_page` (1–100) says otherwise.',
      CategoryPageSchema,
      CategoryListQuery,
    ),
    async (c) => {
      const query = c.req.valid('query' as never) as z.output<typeof CategoryListQuery>;
      // Every category here is a root: `roots_only` keeps them all, a `parent_id` (sent, not blank)
      // has no subcategories to show, as the service answers for a category without any.
      const categories = query.parent_id?.trim() ? [] : await store.listCategories(c.get('principal').userId);
      const { rows, pagination } = await pageOf(categories, query);
      return c.json({ categories: rows.map(renderCategory), pagination } as never, 200);
    },
  );
  mountRoute(
    app,
    get(
      '/api/v1/merchants',
      'Merchants',
      'The merchants, by name',
      'As the service: a bare array, not paged.',
      z.array(MerchantSchema),
    ),
    async (c) =>
      c.json((await store.listMerchants(c.get('principal').userId)).map(renderMerchant) as never, 200),
  );
  mountRoute(
    app,
    get(
      '/api/v1/tags',
      'Tags',
      'The tags, by name',
      `As the service: a bare array, not paged (a user has at most ${MAX_TAGS_PER_USER}).`,
      z.array(TagSchema),
    ),
    async (c) => c.json((await store.listTags(c.get('principal').userId)).map(renderTag) as never, 200),
  );

  const createTag = createRoute({
    method: 'post',
    path: '/api/v1/tags',
    tags: ['Tags'],
    summary: 'Create a tag',
    security,
    middleware: [requireKey('write'), wellFormedJson()],
    request: { body: { required: true, content: { 'application/json': { schema: TagCreateBody } } } },
    responses: {
      201: ok(TagSchema, 'Created'),
      400: err('Malformed JSON, or no `tag` member'),
      422: err('A blank name, a name taken, a bad color, or the user has 1,000 tags already'),
      ...WRITE_ERRORS_UNDONE_ON_503,
      ...JSON_BODY_ERRORS,
    },
  });
  mountRoute(app, createTag, async (c) => {
    const { tag: input } = c.req.valid('json');
    const name = input.name.trim();
    if (name === '')
      throw new ApiProblem(422, 'validation_failed', 'Tag could not be created', ["Name can't be blank"]);
    const created_at = new Date().toISOString();
    const tag = { id: randomUUID(), name, color: input.color ?? '#e99537', created_at };
    const outcome = await store.insertTag(c.get('principal').userId, tag, { deadline: c.get('deadline') });
    if (outcome !== 'created')
      throw new ApiProblem(422, 'validation_failed', 'Tag could not be created', [
        outcome === 'taken' ? 'Name has already been taken' : `A user has at most ${MAX_TAGS_PER_USER} tags`,
      ]);
    return c.json(renderTag({ ...tag, updated_at: created_at }) as never, 201);
  });
}
