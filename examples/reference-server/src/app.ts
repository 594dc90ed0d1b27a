/** The HTTP surface: the service's `/api/v1` plus the reference server's own sync and setup routes. */
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { randomUUID } from 'node:crypto';
import type { ReferenceServerCore } from './core.js';
import { buildOpenApiDocument } from './openapi.js';
import { assertWellFormedText } from './input.js';
import {
  createTransaction,
  deleteTransaction,
  listDeletedTransactions,
  restoreTransaction,
} from './lifecycle.js';
import { ApiProblem } from './problem.js';
import { getTransaction, listTransactions, updateTransaction } from './transactions.js';
import { authenticate, type Principal } from './users.js';

type Env = { Variables: { principal: Principal } };

function problem(c: Context, status: number, code: string, message: string, errors?: string[]) {
  return c.json(
    errors ? { error: code, message, errors } : { error: code, message },
    status as ContentfulStatusCode,
  );
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new ApiProblem(400, 'bad_request', 'The request body is not valid JSON');
  }
  // Text a database cannot store as sent is refused, never silently altered.
  assertWellFormedText(body);
  return body;
}

function intParam(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

export function createApp(core: ReferenceServerCore): Hono<Env> {
  const app = new Hono<Env>();
  const { store } = core;

  app.onError((error, c) => {
    if (error instanceof ApiProblem) return problem(c, error.status, error.code, error.message, error.errors);
    core.logger.error?.('request failed', {
      path: c.req.path,
      error: error instanceof Error ? error.message : String(error),
    });
    return problem(c, 500, 'internal_server_error', 'An unexpected error occurred');
  });
  app.notFound((c) => problem(c, 404, 'not_found', 'Route not found'));

  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/api/v1/openapi.json', (c) => c.json(buildOpenApiDocument()));

  app.use('/api/v1/*', async (c, next) => {
    const principal = await authenticate(store, c.req.header('x-api-key'));
    if (!principal)
      return problem(c, 401, 'unauthorized', 'Access token or API key is invalid, expired, or missing');
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && principal.scope !== 'read_write') {
      return problem(c, 403, 'insufficient_scope', "This action requires the 'write' scope");
    }
    c.set('principal', principal);
    await next();
  });

  app.get('/api/v1/transactions', async (c) => {
    const q = c.req.query();
    const tagIds = c.req.queries('tag_ids[]') ?? c.req.queries('tag_ids');
    return c.json(
      await listTransactions(store, c.var.principal.userId, {
        page: intParam(q.page),
        per_page: intParam(q.per_page),
        account_id: q.account_id,
        start_date: q.start_date,
        end_date: q.end_date,
        search: q.search,
        category_id: q.category_id,
        tag_ids: tagIds,
      }),
    );
  });
  app.post('/api/v1/transactions', async (c) => {
    const result = await createTransaction(store, c.var.principal.userId, await readJson(c), core.today());
    return c.json(result.transaction, result.created ? 201 : 200);
  });
  // Before `/:id`, which would take "deleted" for an id.
  app.get('/api/v1/transactions/deleted', async (c) => {
    const q = c.req.query();
    return c.json(
      await listDeletedTransactions(store, c.var.principal.userId, {
        page: intParam(q.page),
        per_page: intParam(q.per_page),
      }),
    );
  });
  app.delete('/api/v1/transactions/:id', async (c) =>
    c.json(await deleteTransaction(store, c.var.principal.userId, c.req.param('id'))),
  );
  app.post('/api/v1/transactions/:id/restore', async (c) =>
    c.json(await restoreTransaction(store, c.var.principal.userId, c.req.param('id'))),
  );
  app.get('/api/v1/transactions/:id', async (c) =>
    c.json(await getTransaction(store, c.var.principal.userId, c.req.param('id'))),
  );
  const update = async (c: Context<Env>) =>
    c.json(
      await updateTransaction(
        store,
        c.var.principal.userId,
        c.req.param('id')!,
        await readJson(c),
        core.today(),
      ),
    );
  app.patch('/api/v1/transactions/:id', update);
  app.put('/api/v1/transactions/:id', update);

  app.get('/api/v1/accounts', async (c) =>
    c.json({
      accounts: (await store.listAccounts(c.var.principal.userId)).map(
        ({ id, name, account_type, currency, balance, state }) => ({
          id,
          name,
          account_type,
          currency,
          balance,
          state,
        }),
      ),
    }),
  );
  app.get('/api/v1/categories', async (c) =>
    c.json({ categories: await store.listCategories(c.var.principal.userId) }),
  );
  app.get('/api/v1/merchants', async (c) =>
    c.json({ merchants: await store.listMerchants(c.var.principal.userId) }),
  );
  app.get('/api/v1/tags', async (c) => c.json({ tags: await store.listTags(c.var.principal.userId) }));
  app.post('/api/v1/tags', async (c) => {
    const body = (await readJson(c)) as { tag?: { name?: unknown; color?: unknown } } | undefined;
    const name = body?.tag?.name;
    if (typeof name !== 'string' || name.trim() === '') {
      throw new ApiProblem(422, 'validation_failed', 'Tag could not be created', ["Name can't be blank"]);
    }
    const color = typeof body?.tag?.color === 'string' ? body.tag.color : '#e99537';
    const tag = { id: randomUUID(), name: name.trim(), color };
    if (!(await store.insertTag(c.var.principal.userId, tag))) {
      throw new ApiProblem(422, 'validation_failed', 'Tag could not be created', [
        'Name has already been taken',
      ]);
    }
    return c.json(tag, 201);
  });

  app.put('/api/v1/provider', async (c) => {
    const body = (await readJson(c)) as { api_key?: unknown; base_url?: unknown } | undefined;
    if (typeof body?.api_key !== 'string' || body.api_key.trim() === '') {
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        "api_key can't be blank",
      ]);
    }
    const baseUrl = typeof body.base_url === 'string' ? body.base_url : undefined;
    await core.setProviderKey(c.var.principal.userId, body.api_key, baseUrl);
    return c.json(await core.status(c.var.principal.userId));
  });
  app.get('/api/v1/sync/status', async (c) => c.json(await core.status(c.var.principal.userId)));
  app.post('/api/v1/sync', async (c) => c.json(await core.syncUser(c.var.principal.userId)));

  return app;
}
