/** The reference server's own routes: the user's provider key, and syncing. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ReferenceServerCore } from '../../core.js';
import { ApiProblem } from '../../problem.js';
import type { AppEnv } from '../env.js';
import { wellFormedJson } from '../middleware/well-formed.js';
import { AUTH_ERRORS, WRITE_ERRORS, err, ok } from '../responses.js';
import { ProviderKeyBody } from '../schemas.js';

type RequireKey = (scope: 'read' | 'write') => MiddlewareHandler<AppEnv>;
const security = [{ ApiKey: [] }];
const TAGS = ['Sync'];

export const SyncStatusSchema = z
  .object({
    provider_configured: z.boolean(),
    connection: z.object({}).loose().nullable(),
    last_sync: z.object({}).loose().nullable(),
    accounts: z.array(z.object({}).loose()),
  })
  .loose()
  .openapi('SyncStatus');

export function syncRoutes(app: OpenAPIHono<AppEnv>, core: ReferenceServerCore, requireKey: RequireKey) {
  const statusRoute = createRoute({
    method: 'get',
    path: '/api/v1/sync/status',
    tags: TAGS,
    summary: 'The connection, the last run and each account (freshness, balance check)',
    security,
    middleware: [requireKey('read')],
    responses: { 200: ok(SyncStatusSchema, 'Status'), ...AUTH_ERRORS },
  });
  app.openapi(statusRoute, async (c) => c.json((await core.status(c.get('principal').userId)) as never, 200));

  const syncRoute = createRoute({
    method: 'post',
    path: '/api/v1/sync',
    tags: TAGS,
    summary: 'Sync now',
    security,
    middleware: [requireKey('write')],
    responses: {
      200: ok(z.object({}).loose().openapi('SyncSummary'), 'The run'),
      422: err('No provider key is configured'),
      ...WRITE_ERRORS,
    },
  });
  app.openapi(syncRoute, async (c) => c.json((await core.syncUser(c.get('principal').userId)) as never, 200));

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
      200: ok(SyncStatusSchema, 'Stored; the status'),
      400: err('Malformed JSON'),
      422: err('A blank key, or a base_url that is not allowed'),
      ...WRITE_ERRORS,
    },
  });
  app.openapi(providerRoute, async (c) => {
    const body = c.req.valid('json');
    if (body.api_key.trim() === '')
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        "api_key can't be blank",
      ]);
    await core.setProviderKey(c.get('principal').userId, body.api_key, body.base_url);
    return c.json((await core.status(c.get('principal').userId)) as never, 200);
  });
}
