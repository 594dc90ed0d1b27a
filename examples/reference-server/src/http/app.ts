/**
 * The HTTP surface: the service's `/api/v1`, the reference server's own sync routes, the OpenAPI
 * document and its page. Every request gets an id and one access-log line; bodies are bounded
 * while read; each `/api/v1` route checks key → rate limit → scope after routing, so an unknown
 * route is a 404 whatever the key.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ServerRuntime } from '../runtime.js';
import type { AppEnv } from './env.js';
import { LIMITS } from './limits.js';
import { createAuth, type RateLimitOptions } from './middleware/auth.js';
import { accessLog, apiHeaders, bodySizeLimit, requestIds, requestTimeout } from './middleware/edge.js';
import { errorAnswer, INTERNAL_ERROR, TIMED_OUT, type ErrorAnswer } from './error-answer.js';
import { problem } from './problem-response.js';
import { refuseUndecodableQuery } from './route.js';
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

/** How long a request may run before it is answered 503, unless `requestTimeoutMs` says otherwise. */
export const REQUEST_TIMEOUT_MS = 30_000;

export function createApp(runtime: ServerRuntime, options: HttpOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });

  app.use('*', requestIds());
  app.use('*', accessLog(runtime.logger));
  app.use('/api/*', apiHeaders);
  // After the API's headers: its 400 carries them, as every /api answer does.
  app.use('*', refuseUndecodableQuery);
  app.use('/api/*', bodySizeLimit(options.maxBodyBytes ?? LIMITS.bodyBytes));
  app.use(
    '/api/*',
    requestTimeout(
      options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      () => new HTTPException(503, { message: TIMED_OUT.message }),
    ),
  );

  app.onError((error, c) => {
    const known = errorAnswer(error);
    if (known) return answerError(c, known);
    if (error instanceof HTTPException) {
      const status = error.status;
      if (status === 503)
        return answerError(c, { ...TIMED_OUT, message: error.message || TIMED_OUT.message });
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
    // Already answered 503 by the request timeout: what failed afterwards (its body could no longer be
    // read, say) is nobody's answer, and no fault of the server's.
    if (c.get('deadline')?.expired) return answerError(c, TIMED_OUT);
    runtime.logger.error?.('request failed', {
      request_id: c.get('requestId'),
      path: c.req.path,
      error: error instanceof Error ? error.message : String(error),
    });
    return answerError(c, INTERNAL_ERROR);
  });
  app.notFound((c) => problem(c, 404, 'not_found', 'Route not found'));

  app.get('/health', (c) => c.json({ status: 'ok' }));
  const { requireKey, withinLimit } = createAuth(runtime.store, options.rateLimit ?? {});
  mountWebUi(app, runtime, { withinLimit });
  transactionRoutes(app, runtime, requireKey);
  catalogRoutes(app, runtime, requireKey);
  syncRoutes(app, runtime, requireKey);
  docsRoutes(app, { version: '0.1.0' });
  acceptJsonSuffix(app);
  return app;
}

const OPENAPI_PATH = '/api/v1/openapi.json';
const JSON_SUFFIX = /^(\/api\/v1\/[^?]*?)\.json(?=$|\?)/;

/**
 * As the service (Rails' format suffix): `/api/v1/transactions.json` is `/api/v1/transactions`. The
 * suffix is taken off before routing, so every route, its checks and its answer are the same; only a
 * request that has one pays for a new `Request`.
 */
function acceptJsonSuffix(app: OpenAPIHono<AppEnv>): void {
  const route = app.fetch;
  app.fetch = (request, ...rest) => {
    const url = new URL(request.url);
    const bare = JSON_SUFFIX.exec(url.pathname);
    // The API's own description is a file named so, not a route with a suffix.
    if (!bare || url.pathname === OPENAPI_PATH) return route(request, ...rest);
    url.pathname = bare[1]!;
    const { method, headers, body, signal } = request;
    return route(new Request(url, { method, headers, body, signal, duplex: 'half' } as RequestInit), ...rest);
  };
}

function answerError(c: Context<AppEnv>, answer: ErrorAnswer): Response {
  if (answer.retryAfter !== undefined) c.header('Retry-After', String(answer.retryAfter));
  return problem(c, answer.status, answer.code, answer.message, answer.errors);
}
