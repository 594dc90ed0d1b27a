/** `/api/v1/transactions…`: the service's transaction routes, plus finsync's deleted list and restore. */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import {
  createTransaction,
  deleteTransaction,
  listDeletedTransactions,
  restoreTransaction,
} from '../../lifecycle.js';
import { ApiProblem } from '../../problem.js';
import { MAX_CREATED_TRANSACTIONS_PER_USER } from '../../store/types.js';
import { getTransaction, listTransactions, updateTransaction } from '../../transactions.js';
import { LIMITS } from '../limits.js';
import type { ServerRuntime } from '../../runtime.js';
import type { AppEnv } from '../env.js';
import { wellFormedJson } from '../middleware/well-formed.js';
import {
  AUTH_ERRORS,
  DeleteResultSchema,
  TransactionPageSchema,
  TransactionSchema,
  JSON_BODY_ERRORS,
  WRITE_ERRORS_UNDONE_ON_503,
  err,
  ok,
} from '../responses.js';
import {
  IdParam,
  PageQuery,
  TransactionCreateBody,
  TransactionListQuery,
  TransactionUpdateBody,
} from '../schemas.js';
import { mountRoute } from '../route.js';

type RequireKey = (scope: 'read' | 'write') => MiddlewareHandler<AppEnv>;
const TAGS = ['Transactions'];
const security = [{ ApiKey: [] }];
const body = (schema: typeof TransactionUpdateBody | typeof TransactionCreateBody) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/**
 * A query list parameter under either spelling, `tag_ids[]=…` (Rails) or `tag_ids=…`. Each spelling
 * was bounded by the schema; both together are bounded here.
 */
function list(query: Record<string, unknown>, name: string): string[] | undefined {
  const values = [query[`${name}[]`], query[name]].flat().filter((v): v is string => typeof v === 'string');
  if (values.length > LIMITS.filterIds)
    throw new ApiProblem(400, 'bad_request', `${name} can hold at most ${LIMITS.filterIds} ids`);
  return values.length > 0 ? values : undefined;
}

export function transactionRoutes(app: OpenAPIHono<AppEnv>, runtime: ServerRuntime, requireKey: RequireKey) {
  const { store } = runtime;

  const listRoute = createRoute({
    method: 'get',
    path: '/api/v1/transactions',
    tags: TAGS,
    summary: 'List transactions, newest first',
    description:
      'Filters combine with AND; list filters (`account_ids[]`, …) match any of their values. As the service, `min_amount`/`max_amount` compare the internal amount (expenses positive).',
    security,
    middleware: [requireKey('read')],
    request: { query: TransactionListQuery },
    responses: { 200: ok(TransactionPageSchema, 'One page'), 400: err('A bad filter'), ...AUTH_ERRORS },
  });
  mountRoute(app, listRoute, async (c) => {
    const q = c.req.valid('query') as Record<string, unknown> & { page?: number; per_page?: number };
    const text = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
    return c.json(
      (await listTransactions(
        store,
        c.get('principal').userId,
        {
          page: q.page,
          per_page: q.per_page,
          account_id: text('account_id'),
          account_ids: list(q, 'account_ids'),
          category_id: text('category_id'),
          category_ids: list(q, 'category_ids'),
          merchant_id: text('merchant_id'),
          merchant_ids: list(q, 'merchant_ids'),
          tag_ids: list(q, 'tag_ids'),
          start_date: text('start_date'),
          end_date: text('end_date'),
          min_amount: text('min_amount'),
          max_amount: text('max_amount'),
          type: text('type')?.toLowerCase() as 'income' | 'expense' | undefined,
          search: text('search'),
        },
        { deadline: c.get('deadline') },
      )) as never,
      200,
    );
  });

  const createRouteDef = createRoute({
    method: 'post',
    path: '/api/v1/transactions',
    tags: TAGS,
    summary: 'Create a transaction',
    description:
      'With `external_id` (and `source`, default "api") the create is idempotent per account: a repeat answers 200 with the original row and creates nothing.',
    security,
    middleware: [requireKey('write'), wellFormedJson()],
    request: { body: body(TransactionCreateBody) },
    responses: {
      201: ok(TransactionSchema, 'Created'),
      200: ok(TransactionSchema, 'The row created earlier with this idempotency key'),
      400: err('Malformed JSON, or no `transaction` member'),
      422: err(
        `Validation failed, or the user has created ${MAX_CREATED_TRANSACTIONS_PER_USER.toLocaleString('en')} transactions through the API already; \`errors\` lists why. Nothing is created`,
      ),
      ...WRITE_ERRORS_UNDONE_ON_503,
      ...JSON_BODY_ERRORS,
    },
  });
  mountRoute(app, createRouteDef, async (c) => {
    const result = await createTransaction(
      store,
      c.get('principal').userId,
      c.req.valid('json'),
      runtime.today(),
      { deadline: c.get('deadline') },
    );
    return c.json(result.transaction as never, result.created ? 201 : 200);
  });

  const deletedRoute = createRoute({
    method: 'get',
    path: '/api/v1/transactions/deleted',
    tags: TAGS,
    summary: 'List deleted transactions (finsync extension)',
    description: 'Most recently deleted first, each as the provider has it now. Not part of the service.',
    security,
    middleware: [requireKey('read')],
    request: { query: PageQuery },
    responses: { 200: ok(TransactionPageSchema, 'One page'), 400: err('A bad page'), ...AUTH_ERRORS },
  });
  mountRoute(app, deletedRoute, async (c) => {
    const q = c.req.valid('query');
    return c.json((await listDeletedTransactions(store, c.get('principal').userId, q)) as never, 200);
  });

  const getRoute = createRoute({
    method: 'get',
    path: '/api/v1/transactions/{id}',
    tags: TAGS,
    summary: 'Show a transaction',
    security,
    middleware: [requireKey('read')],
    request: { params: IdParam },
    responses: {
      200: ok(TransactionSchema, 'The transaction'),
      404: err('No such transaction for this key'),
      ...AUTH_ERRORS,
    },
  });
  mountRoute(app, getRoute, async (c) =>
    c.json((await getTransaction(store, c.get('principal').userId, c.req.valid('param').id)) as never, 200),
  );

  for (const method of ['patch', 'put'] as const) {
    const route = createRoute({
      method,
      path: '/api/v1/transactions/{id}',
      tags: TAGS,
      summary: method === 'patch' ? 'Update a transaction' : 'Update a transaction (the same as PATCH)',
      description:
        'Only the members sent change; `null` or an omitted member leaves a field unchanged (`tag_ids: null` clears the tags, as in the service). Unknown members are ignored. Fields edited here are kept on every later sync. Every check runs before anything is written.',
      security,
      middleware: [requireKey('write'), wellFormedJson()],
      request: { params: IdParam, body: body(TransactionUpdateBody) },
      responses: {
        200: ok(TransactionSchema, 'The transaction as stored: a later GET answers the same'),
        400: err('Malformed JSON, or no `transaction` member'),
        404: err('No such transaction for this key'),
        422: err('Validation failed; `errors` lists why. Nothing changes'),
        ...WRITE_ERRORS_UNDONE_ON_503,
        ...JSON_BODY_ERRORS,
      },
    });
    mountRoute(app, route, async (c) =>
      c.json(
        (await updateTransaction(
          store,
          c.get('principal').userId,
          c.req.valid('param').id,
          c.req.valid('json'),
          runtime.today(),
          { deadline: c.get('deadline') },
        )) as never,
        200,
      ),
    );
  }

  const deleteRoute = createRoute({
    method: 'delete',
    path: '/api/v1/transactions/{id}',
    tags: TAGS,
    summary: 'Delete a transaction',
    description:
      'A synced transaction stays deleted through every later sync (pending → posted, a re-issued id) until restored; one created through the API is removed for good.',
    security,
    middleware: [requireKey('write')],
    request: { params: IdParam },
    responses: {
      200: ok(DeleteResultSchema, 'Deleted'),
      404: err('No such transaction for this key'),
      ...WRITE_ERRORS_UNDONE_ON_503,
    },
  });
  mountRoute(app, deleteRoute, async (c) =>
    c.json(
      await deleteTransaction(store, c.get('principal').userId, c.req.valid('param').id, {
        deadline: c.get('deadline'),
      }),
      200,
    ),
  );

  const restoreRoute = createRoute({
    method: 'post',
    path: '/api/v1/transactions/{id}/restore',
    tags: TAGS,
    summary: 'Restore a deleted transaction (finsync extension)',
    description:
      'The transaction comes back as the provider has it now, with the user’s edits. Not part of the service.',
    security,
    middleware: [requireKey('write')],
    request: { params: IdParam },
    responses: {
      200: ok(TransactionSchema, 'Restored'),
      404: err('Not a deleted transaction of this key'),
      409: err('A live transaction holds its external_id and source (created since it was deleted)'),
      ...WRITE_ERRORS_UNDONE_ON_503,
    },
  });
  mountRoute(app, restoreRoute, async (c) =>
    c.json(
      (await restoreTransaction(store, c.get('principal').userId, c.req.valid('param').id, {
        deadline: c.get('deadline'),
      })) as never,
      200,
    ),
  );
}
