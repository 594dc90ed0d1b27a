/**
 * `PATCH`/`PUT /api/v1/transactions/{id}`, the service's busiest write, answered on Node's own
 * request and response when the request is the ordinary one. Through Hono a PATCH pays for a Fetch
 * `Request` and `Response`, the middleware chain and zod-openapi's context: more than the PATCH's
 * own work (docs/benchmarks.md, "Reference-server PATCH").
 *
 * The app stays the one definition of the API. This path takes a request only when its headers are
 * the ordinary ones (a JSON body framed by `Content-Length` within the limit, a key, no query, no
 * rate limit configured), and hands it to the app — with the body it read, as `rawBody` — whenever
 * the body or the key would be refused: every such refusal is the app's to word, and nothing has
 * been read from the store or written when it does. What it answers itself (the updated row, or an
 * error thrown by `updateTransaction`) is built by the functions the app uses: the same body, the
 * same headers, the same access-log line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { malformedTextMembers } from '../input.js';
import type { ServerRuntime } from '../runtime.js';
import { updateTransaction } from '../transactions.js';
import type { Awaitable } from '../store/steps.js';
import { authenticate, type Principal } from '../users.js';
import { errorAnswer, INTERNAL_ERROR, TIMED_OUT, type ErrorAnswer } from './error-answer.js';
import { logAccess, requestIdFor } from './middleware/edge.js';
import { problemBody } from './problem-response.js';
import { TransactionUpdateBody } from './schemas.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;

export interface DirectUpdateOptions {
  maxBodyBytes: number;
  requestTimeoutMs: number;
  /** With a per-key rate limit every request goes to the app, where the limiter counts it. */
  rateLimited: boolean;
}

const ROUTE = /^\/api\/v1\/transactions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** Only plain JSON: anything else the app parses or refuses (415) by its own rules. */
const PLAIN_JSON = /^application\/json(;\s*charset=utf-8)?$/i;
/** What the app sends when no rate limit is configured, as a self-hosted service does. */
const UNLIMITED = {
  'x-ratelimit-limit': 'Infinity',
  'x-ratelimit-remaining': 'Infinity',
  'x-ratelimit-reset': '0',
} as const;

/** The request's transaction id and key when its headers are the ordinary ones, else undefined. */
function ordinary(request: IncomingMessage, maxBodyBytes: number): { id: string; key: string } | undefined {
  if (request.method !== 'PATCH' && request.method !== 'PUT') return undefined;
  const match = ROUTE.exec(request.url ?? '');
  const headers = request.headers;
  const key = headers['x-api-key'];
  const length = Number(headers['content-length']);
  if (
    !match ||
    typeof key !== 'string' ||
    headers['transfer-encoding'] !== undefined ||
    !(length > 0 && length <= maxBodyBytes) ||
    !PLAIN_JSON.test(headers['content-type'] ?? '')
  )
    return undefined;
  return { id: match[1]!, key };
}

/** Wraps the app's listener: ordinary PATCHes are answered here, everything else by `app`. */
export function directTransactionUpdate(
  runtime: ServerRuntime,
  options: DirectUpdateOptions,
  app: Listener,
): Listener {
  if (options.rateLimited) return app;
  const { store, logger } = runtime;

  /** One request, from its arrival to its answer: by this path, by the request timeout, or by the app. */
  function exchange(request: IncomingMessage, response: ServerResponse, started: number) {
    const requestId = requestIdFor(request.headers['x-request-id'] as string | undefined);
    let userId: string | undefined;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      if (timer) clearTimeout(timer);
      return true;
    };
    const reply = (status: number, body: unknown, extra?: Record<string, string>) => {
      if (!settle()) return;
      send(response, status, { ...extra, ...UNLIMITED, 'x-request-id': requestId }, body);
      logAccess(logger, { requestId, method: request.method!, path: request.url!, status, started, userId });
    };
    const replyError = (known: ErrorAnswer) =>
      reply(
        known.status,
        problemBody(known.code, known.message, known.errors, requestId),
        known.retryAfter === undefined ? undefined : { 'retry-after': String(known.retryAfter) },
      );
    let timer: NodeJS.Timeout | undefined;
    return {
      /**
       * The work goes on past this turn of the event loop (PostgreSQL, or SQLite behind another unit of
       * work): as the app's request timeout, a 503 once it has run too long, while the work runs on.
       */
      waiting() {
        timer ??= setTimeout(
          () => replyError(TIMED_OUT),
          Math.max(0, options.requestTimeoutMs - (performance.now() - started)),
        );
      },
      set userId(id: string) {
        userId = id;
      },
      reply,
      fail(error: unknown) {
        const known = errorAnswer(error);
        if (!known)
          logger.error?.('request failed', {
            request_id: requestId,
            path: request.url,
            error: error instanceof Error ? error.message : String(error),
          });
        replyError(known ?? INTERNAL_ERROR);
      },
      handOver(body: Buffer) {
        if (!settle()) return;
        // @hono/node-server reads a body already taken from the stream from `rawBody`.
        (request as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        void app(request, response);
      },
    };
  }

  function answer(
    request: IncomingMessage,
    response: ServerResponse,
    target: { id: string; key: string },
    raw: Buffer,
    started: number,
  ): void {
    const exchanged = exchange(request, response, started);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return exchanged.handOver(raw);
    }
    const checked = malformedTextMembers(parsed).length === 0 && TransactionUpdateBody.safeParse(parsed);
    if (!checked || !checked.success) return exchanged.handOver(raw);

    // A key that cannot be looked up (a busy database) is the app's to answer, as a refused one.
    const update = (principal: Principal | undefined) => {
      if (principal?.scope !== 'read_write') return exchanged.handOver(raw);
      exchanged.userId = principal.userId;
      let result: Awaitable<unknown>;
      try {
        result = updateTransaction(store, principal.userId, target.id, checked.data, runtime.today());
      } catch (error) {
        return exchanged.fail(error);
      }
      if (!(result instanceof Promise)) return exchanged.reply(200, result);
      exchanged.waiting();
      result.then((value) => exchanged.reply(200, value), exchanged.fail);
    };
    let principal: Awaitable<Principal | undefined>;
    try {
      principal = authenticate(store, target.key);
    } catch {
      return exchanged.handOver(raw);
    }
    if (!(principal instanceof Promise)) return update(principal);
    exchanged.waiting();
    principal.then(update, () => exchanged.handOver(raw));
  }

  return function directOrApp(request, response) {
    const target = ordinary(request, options.maxBodyBytes);
    if (!target) return app(request, response);
    const started = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      try {
        answer(request, response, target, raw, started);
      } catch (error) {
        // Not reached by any known request: `answer` catches what the store and the checks throw.
        logger.error?.('request failed', {
          path: request.url,
          error: error instanceof Error ? error.message : String(error),
        });
        if (!response.headersSent)
          send(
            response,
            500,
            {},
            problemBody(INTERNAL_ERROR.code, INTERNAL_ERROR.message, undefined, undefined),
          );
      }
    });
  };
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    ...headers,
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
