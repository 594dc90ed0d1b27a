/** The reference server's own routes: the user's provider key, and syncing. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ServerRuntime } from '../../runtime.js';
import { ApiProblem } from '../../problem.js';
import type { AppEnv } from '../env.js';
import { wellFormedJson } from '../middleware/well-formed.js';
import { AUTH_ERRORS, JSON_BODY_ERRORS, WRITE_ERRORS, err, ok } from '../responses.js';
import { ProviderKeyBody } from '../schemas.js';
import { mountRoute } from '../route.js';

type RequireKey = (scope: 'read' | 'write') => MiddlewareHandler<AppEnv>;
const security = [{ ApiKey: [] }];
const TAGS = ['Sync'];

const RunSchema = z
  .object({
    run_id: z.string(),
    started_at: z.string(),
    progress: z.object({
      accounts_done: z.number().int(),
      accounts_total: z.number().int(),
      transactions_fetched: z.number().int(),
    }),
  })
  .openapi('SyncRun');

const SummarySchema = z
  .object({
    run_id: z.string(),
    ok: z.boolean(),
    outcome: z.enum(['success', 'partial', 'failed', 'skipped']),
    status: z.string(),
    started_at: z.string(),
    finished_at: z.string(),
    accounts: z.array(z.object({}).loose()),
    issues: z.array(
      z.object({
        stage: z.string(),
        account_id: z.string().nullable(),
        error: z.string(),
        message: z.string(),
      }),
    ),
    feed_entries_applied: z.number().int(),
  })
  .loose()
  .openapi('SyncSummary');

export const SyncStatusSchema = z
  .object({
    provider_configured: z.boolean(),
    connection: z.object({}).loose().nullable(),
    running: RunSchema.nullable(),
    last_sync: SummarySchema.nullable().openapi({
      description: 'The last run that ended; kept across restarts',
    }),
    accounts: z.array(z.object({}).loose()),
  })
  .loose()
  .openapi('SyncStatus');

export function syncRoutes(app: OpenAPIHono<AppEnv>, runtime: ServerRuntime, requireKey: RequireKey) {
  const statusRoute = createRoute({
    method: 'get',
    path: '/api/v1/sync/status',
    tags: TAGS,
    summary: 'The connection, the last run and each account (freshness, balance check)',
    security,
    middleware: [requireKey('read')],
    responses: { 200: ok(SyncStatusSchema, 'Status'), ...AUTH_ERRORS },
  });
  mountRoute(app, statusRoute, async (c) =>
    c.json((await runtime.status(c.get('principal').userId)) as never, 200),
  );

  const syncRoute = createRoute({
    method: 'post',
    path: '/api/v1/sync',
    tags: TAGS,
    summary: 'Sync now',
    description:
      'Starts a sync (or joins the one running) and answers 202 with its id at once; `GET /api/v1/sync/status` shows its progress and then its result. With `?wait=true` it answers 200 with the result when the run has ended.',
    security,
    middleware: [requireKey('write')],
    request: {
      query: z.object({
        wait: z.enum(['true', 'false']).optional().openapi({ description: 'Answer when the run has ended' }),
      }),
    },
    responses: {
      202: ok(RunSchema, 'Started (or already running): its id and progress'),
      200: ok(SummarySchema, 'With `wait=true`: the run, ended'),
      400: err('`wait` is neither `true` nor `false`'),
      422: err('No provider key is configured'),
      ...WRITE_ERRORS,
    },
  });
  mountRoute(app, syncRoute, async (c) => {
    const userId = c.get('principal').userId;
    if (c.req.valid('query').wait === 'true') return c.json((await runtime.syncUser(userId)) as never, 200);
    const run = await runtime.startSync(userId);
    c.header('Location', '/api/v1/sync/status');
    return c.json(run as never, 202);
  });

  const providerRoute = createRoute({
    method: 'put',
    path: '/api/v1/provider',
    tags: TAGS,
    summary: "Set the user's provider key",
    description:
      'Stored encrypted at rest; `base_url` may only be the provider, `sandbox`, or a URL the operator allowed.',
    security,
    middleware: [requireKey('write'), wellFormedJson()],
    request: { body: { required: true, content: { 'application/json': { schema: ProviderKeyBody } } } },
    responses: {
      200: ok(SyncStatusSchema, 'Checked with the provider and stored; a sync has started (`running`)'),
      400: err('Malformed JSON'),
      422: err(
        'A blank key, a base_url that is not allowed, or a key the provider refused (the old key stays)',
      ),
      ...WRITE_ERRORS,
      ...JSON_BODY_ERRORS,
      503: err(
        'The provider could not be reached to check the key (nothing changed), the database is busy, or the request took too long (the key may still be stored); see Retry-After',
      ),
    },
  });
  mountRoute(app, providerRoute, async (c) => {
    const body = c.req.valid('json');
    if (body.api_key.trim() === '')
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        "api_key can't be blank",
      ]);
    await runtime.setProviderKey(c.get('principal').userId, body.api_key, body.base_url);
    return c.json((await runtime.status(c.get('principal').userId)) as never, 200);
  });
}
