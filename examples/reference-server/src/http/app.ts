/**
 * The HTTP surface: the service's `/api/v1`, the reference server's own sync routes, the OpenAPI
 * document and its page. Every request gets an id and one access-log line; bodies are bounded
 * while read; each `/api/v1` route checks key → rate limit → scope after routing, so an unknown
 * route is a 404 whatever the key.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { timeout } from 'hono/timeout';
import type { ServerRuntime } from '../runtime.js';
import { ApiProblem } from '../problem.js';
import type { AppEnv } from './env.js';
import { LIMITS } from './limits.js';
import { createAuth, type RateLimitOptions } from './middleware/auth.js';
import { accessLog, bodySizeLimit, requestIds } from './middleware/edge.js';
import { problem } from './problem-response.js';
import { catalogRoutes } from './routes/catalog.js';
import { docsRoutes } from './routes/docs.js';
import { syncRoutes } from './routes/sync.js';
import { transactionRoutes } from './routes/transactions.js';
import { validationHook } from './validation.js';
import { mountWebUi } from '../web/index.js';

export interface HttpOptions {
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /** Per-key limit; default none (a self-hosted service). */
  rateLimit?: RateLimitOptions | undefined;
  /** A request still running after this long is answered 503; default 30 s. */
  requestTimeoutMs?: number | undefined;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLite's lock timeout; PostgreSQL's lock and connection-loss classes.
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === '55P03' || code === '57P01';
}

export function createApp(runtime: ServerRuntime, options: HttpOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });

  app.use('*', requestIds());
  app.use('*', accessLog(runtime.logger));
  app.use('/api/*', bodySizeLimit(options.maxBodyBytes ?? LIMITS.bodyBytes));
  app.use(
    '/api/*',
    timeout(
      options.requestTimeoutMs ?? 30_000,
      () => new HTTPException(503, { message: 'The request took too long; try again' }),
    ),
  );

  app.onError((error, c) => {
    if (error instanceof ApiProblem) {
      if (error.status === 503 || error.status === 429) c.header('Retry-After', '5');
      return problem(c, error.status, error.code, error.message, error.errors);
    }
    if (isBusy(error)) {
      // Another process holds the database's write lock (SQLite), or the database is going away.
      c.header('Retry-After', '1');
      return problem(c, 503, 'database_busy', 'The database is busy; try again in a moment');
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      if (status === 503) c.header('Retry-After', '5');
      const code =
        status === 400
          ? 'bad_request'
          : status === 413
            ? 'payload_too_large'
            : status === 415
              ? 'unsupported_media_type'
              : 'service_unavailable';
      return problem(c, status, code, error.message || 'Bad request');
    }
    runtime.logger.error?.('request failed', {
      request_id: c.get('requestId'),
      path: c.req.path,
      error: error instanceof Error ? error.message : String(error),
    });
    return problem(c, 500, 'internal_server_error', 'An unexpected error occurred');
  });
  app.notFound((c) => problem(c, 404, 'not_found', 'Route not found'));

  app.get('/health', (c) => c.json({ status: 'ok' }));
  mountWebUi(app, runtime);
  const requireKey = createAuth(runtime.store, options.rateLimit ?? {});
  transactionRoutes(app, runtime, requireKey);
  catalogRoutes(app, runtime, requireKey);
  syncRoutes(app, runtime, requireKey);
  docsRoutes(app, { version: '0.1.0' });
  return app;
}
