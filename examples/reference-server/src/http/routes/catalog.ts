/** The lists a client needs to find ids: accounts, categories, merchants and tags (and creating a tag). */
import { randomUUID } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ServerRuntime } from '../../runtime.js';
import { ApiProblem } from '../../problem.js';
import type { AppEnv } from '../env.js';
import { wellFormedJson } from '../middleware/well-formed.js';
import {
  AUTH_ERRORS,
  AccountSchema,
  CategorySchema,
  MerchantSchema,
  TagSchema,
  JSON_BODY_ERRORS,
  WRITE_ERRORS_UNDONE_ON_503,
  err,
  ok,
} from '../responses.js';
import { TagCreateBody } from '../schemas.js';
import { MAX_TAGS_PER_USER } from '../../store/types.js';
import { mountRoute } from '../route.js';

type RequireKey = (scope: 'read' | 'write') => MiddlewareHandler<AppEnv>;
const security = [{ ApiKey: [] }];

export function catalogRoutes(app: OpenAPIHono<AppEnv>, runtime: ServerRuntime, requireKey: RequireKey) {
  const { store } = runtime;
  const get = <S extends z.ZodType>(path: string, tag: string, summary: string, member: string, item: S) =>
    createRoute({
      method: 'get',
      path,
      tags: [tag],
      summary,
      security,
      middleware: [requireKey('read')],
      responses: { 200: ok(z.object({ [member]: z.array(item) }), summary), ...AUTH_ERRORS },
    });

  mountRoute(
    app,
    get('/api/v1/accounts', 'Accounts', 'The accounts, by name', 'accounts', AccountSchema),
    async (c) =>
      c.json(
        {
          accounts: (await store.listAccounts(c.get('principal').userId)).map(
            ({ id, name, account_type, currency, balance, state }) => ({
              id,
              name,
              account_type,
              currency,
              balance,
              state,
            }),
          ),
        } as never,
        200,
      ),
  );
  mountRoute(
    app,
    get('/api/v1/categories', 'Categories', 'The categories', 'categories', CategorySchema),
    async (c) => c.json({ categories: await store.listCategories(c.get('principal').userId) } as never, 200),
  );
  mountRoute(
    app,
    get('/api/v1/merchants', 'Merchants', 'The merchants', 'merchants', MerchantSchema),
    async (c) => c.json({ merchants: await store.listMerchants(c.get('principal').userId) } as never, 200),
  );
  mountRoute(app, get('/api/v1/tags', 'Tags', 'The tags', 'tags', TagSchema), async (c) =>
    c.json({ tags: await store.listTags(c.get('principal').userId) } as never, 200),
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
    const tag = { id: randomUUID(), name, color: input.color ?? '#e99537' };
    const outcome = await store.insertTag(c.get('principal').userId, tag, { deadline: c.get('deadline') });
    if (outcome !== 'created')
      throw new ApiProblem(422, 'validation_failed', 'Tag could not be created', [
        outcome === 'taken' ? 'Name has already been taken' : `A user has at most ${MAX_TAGS_PER_USER} tags`,
      ]);
    return c.json(tag, 201);
  });
}
