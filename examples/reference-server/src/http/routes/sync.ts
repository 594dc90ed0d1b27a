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

const BalanceCheckSchema = z
  .object({
    status: z.enum(['unchecked', 'balanced', 'mismatch']),
    basis: z.enum(['posted', 'posted-and-pending']).openapi({
      description: '`posted-and-pending`: this bank counts holds in its balance',
    }),
    opening_balance: z.string().openapi({
      description: 'The balance less the synced rows: what the account held before `history_from`',
    }),
    history_from: z.string().nullable().openapi({ description: 'The earliest date of a synced posted row' }),
    since: z.string().nullable().openapi({
      description: 'While `mismatch`: the first day whose running balance the rows do not explain',
    }),
    difference: z.string().nullable().openapi({
      description: "While `mismatch`: the provider's balance less what the rows add up to",
    }),
  })
  .nullable()
  .openapi('BalanceCheck', {
    description: "Whether the provider's balance and the synced rows add up; `null` before the first balance",
  });

const SummaryAccountSchema = z.object({
  account_id: z.string(),
  name: z.string(),
  state: z.string().openapi({ description: '`active`, `inactive` (not synced) or `gone`' }),
  fetched: z.number().int(),
  added: z.number().int(),
  modified: z.number().int(),
  removed: z.number().int(),
  hidden: z.number().int().openapi({
    description: 'Rows the provider listed that stand for another row (a hold beside its posting, an old id)',
  }),
  replaced: z.record(z.string(), z.number().int()).openapi({
    description: "Rows that took another's place, by reason (`posted`, `id-changed`, `reverted`)",
  }),
  balance_check: BalanceCheckSchema,
});

const SummarySchema = z
  .object({
    run_id: z.string(),
    ok: z.boolean(),
    outcome: z.enum(['success', 'partial', 'failed', 'skipped']),
    status: z.string(),
    started_at: z.string(),
    finished_at: z.string(),
    accounts: z.array(SummaryAccountSchema),
    issues: z.array(
      z.object({
        stage: z.string(),
        account_id: z.string().nullable(),
        error: z.string(),
        message: z.string(),
      }),
    ),
    skipped_accounts: z
      .array(z.object({ error: z.string(), message: z.string() }))
      .optional()
      .openapi({
        description:
          'Accounts the provider listed that are left alone on every run (an id over 256 characters); they do not fail the run',
      }),
    feed_entries_applied: z.number().int(),
    stale_balances: z.array(z.string()).optional().openapi({
      description:
        "The provider's ids of the accounts whose balance could not be read, in this run or an earlier one no run has read it since",
    }),
  })
  .loose()
  .openapi('SyncSummary');

export const SyncStatusSchema = z
  .object({
    provider_configured: z.boolean(),
    connection: z
      .object({
        status: z.enum(['active', 'reauth_required', 'paused']),
        status_reason: z.string().nullable(),
        paused_until: z.string().nullable(),
        last_run_at: z.string().nullable(),
        last_success_at: z.string().nullable(),
        syncing: z.boolean(),
      })
      .nullable()
      .openapi({ description: '`null` until a provider key is set' }),
    running: RunSchema.nullable(),
    last_sync: SummarySchema.nullable().openapi({
      description: 'The last run that ended; kept across restarts',
    }),
    accounts: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        account_type: z.string(),
        currency: z.string().nullable(),
        balance: z.string().nullable(),
        balance_stale: z.boolean().openapi({
          description:
            "`true` when a sync could not read the account's balance and none has read it since: `balance` is the one before, which the rows synced since may have moved on from",
        }),
        state: z.string().openapi({ description: '`active`, `inactive` (not synced) or `gone`' }),
        last_synced_at: z.string().nullable(),
        synced_through: z.string().nullable().openapi({ description: 'The last day whose rows are synced' }),
        last_error: z.string().nullable(),
        balance_check: BalanceCheckSchema,
        balanced_on: z.string().nullable().openapi({
          description: 'The day of the balance the check is anchored to, once it was checked',
        }),
      }),
    ),
    account_successors: z
      .array(
        z.object({
          account_id: z.string(),
          continues_account_id: z.string().openapi({
            description:
              'The account no longer read (`gone` or `inactive`) whose history `account_id` lists again',
          }),
          from: z.string(),
          to: z.string().openapi({ description: 'The dates both accounts have posted rows for' }),
          rows: z.number().int().openapi({ description: "The old account's posted rows in those dates" }),
          shared_rows: z
            .number()
            .int()
            .openapi({ description: 'How many of them the new account lists too' }),
        }),
      )
      .openapi({
        description:
          'Accounts that continue one no longer read (the bank linked again under a new account id): their history is listed twice. Nothing is merged.',
      }),
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
      400: err('`wait` is neither `true` nor `false` (sent blank, it is not sent)'),
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
