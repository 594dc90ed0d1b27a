/**
 * `PATCH`/`PUT /api/v1/transactions/{id}`, the service's busiest write, answered on Node's own
 * request and response when the request is the ordinary one. Through Hono a PATCH pays for a Fetch
 * `Request` and `Response`, the middleware chain and zod-openapi's context: more than the PATCH's
 * own work (docs/benchmarks.md, "Reference-server PATCH").
 *
 * The app stays the one definition of the API. This path takes a request only when its headers are
 * the ordinary ones (a plain Host, one JSON `Content-Type`, a body framed by `Content-Length` within
 * the limit, a key, no query, no rate limit configured). It checks the key before it reads the body,
 * and hands the request to the app whenever the key or the body would be refused — before reading
 * the body, or with the body it read as `rawBody` — so every refusal is the app's to word, and
 * nothing has been written when it does. On SQLite a key it has accepted before is checked again
 * inside the update's own database transaction instead of by a lookup of its own (`updateTransaction`'s
 * `keyId`): one read transaction fewer, and a revocation made by any process is still seen by the
 * next request, which the app then refuses. What it answers itself (the updated row, an error thrown by
 * `updateTransaction`, the request timeout's 503) is built by the functions the app uses: the same
 * body, the same headers, the same access-log line. PATCHes that keep arriving on one connection alone
 * skip the group commit's wait for the turn's end (connection-streak.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { checkBodyText } from '../input.js';
import type { RenderedTransaction } from '../render.js';
import type { ServerRuntime } from '../runtime.js';
import { ApiProblem, updateTransaction } from '../transactions.js';
import type { Awaitable } from '../store/steps.js';
import { stringified, type JsonText } from '../json-text.js';
import { transactionJson } from '../transaction-json.js';
import { authenticateHash, presentedKeyHash, recordKeyUse, type Principal } from '../users.js';
import { ConnectionStreak } from './connection-streak.js';
import { AnsweredAsTimedOut, RequestDeadline } from './deadline.js';
import { errorAnswer, INTERNAL_ERROR, TIMED_OUT, type ErrorAnswer } from './error-answer.js';
import { API_HEADERS, logAccess, requestIdFor } from './middleware/edge.js';
import { problemBody } from './problem-response.js';
import { TransactionUpdateBody } from './schemas.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;

export interface DirectUpdateOptions {
  maxBodyBytes: number;
  requestTimeoutMs: number;
  /** With a per-key rate limit every request goes to the app, where the limiter counts it. */
  rateLimited: boolean;
}

/** A Host @hono/node-server takes as it is (its own quick pattern); any other it checks with `URL`. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
/**
 * Hosts on the ports that pattern leaves to `URL` (below 1000, from 60000) that `URL` leaves as they
 * are, so the app takes them too: `localhost` and an IPv4 address in its canonical form. Any other
 * name on those ports goes to the app, which may refuse it (`127.1`, `foo.123`, `xn--a` are
 * rewritten or refused by `URL`).
 */
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const PORT = String.raw`(?:[1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])`;
const CANONICAL_HOST = new RegExp(`^(?:localhost|${OCTET}(?:\\.${OCTET}){3}):${PORT}$`);
// The path as the app's router matches it (case-sensitively); only the id's hex digits take either case.
const ROUTE =
  /^\/api\/v1\/transactions\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:\.json)?$/;
/** Only plain JSON: anything else the app parses or refuses (415) by its own rules. */
const PLAIN_JSON = /^application\/json(;\s*charset=utf-8)?$/i;
/**
 * The headers every answer starts with, as `writeHead`'s flat list of names and values: the three
 * object spreads an answer's headers took, and Node walking the object a property at a time, cost
 * about 2.5 % of a lone connection's PATCH in instructions (docs/benchmarks.md).
 */
const LEADING_HEADERS: readonly string[] = [
  'content-type',
  'application/json',
  ...Object.entries(API_HEADERS).flat(),
];
/** What the app sends when no rate limit is configured, as a self-hosted service does. */
const UNLIMITED: readonly string[] = [
  'x-ratelimit-limit',
  'Infinity',
  'x-ratelimit-remaining',
  'Infinity',
  'x-ratelimit-reset',
  '0',
];

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
    !(PLAIN_HOST.test(headers.host ?? '') || CANONICAL_HOST.test(headers.host ?? '')) ||
    !PLAIN_JSON.test(headers['content-type'] ?? '') ||
    // Node keeps the first of two Content-Types, the app reads both (a 415).
    contentTypes(request.rawHeaders) !== 1
  )
    return undefined;
  return { id: match[1]!, key };
}

function contentTypes(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.length === 12 && rawHeaders[i]!.toLowerCase() === 'content-type') count++;
  return count;
}

/** How many accepted keys are remembered; past this the memory starts again (a lookup each, once). */
const MAX_ACCEPTED_KEYS = 10_000;

/** Wraps the app's listener: ordinary PATCHes are answered here, everything else by `app`. */
export function directTransactionUpdate(
  runtime: ServerRuntime,
  options: DirectUpdateOptions,
  app: Listener,
): Listener {
  if (options.rateLimited) return app;
  const { store, logger } = runtime;
  /**
   * Keys with the write scope this path has accepted, by their hash (never the key itself): each
   * later request with one is checked inside its update's transaction (see the file's header).
   */
  const acceptedKeys = new Map<string, Principal>();
  // On SQLite a lookup of its own costs a database transaction of its own. PostgreSQL's costs a round
  // trip, as the check inside the update would: there it gains nothing, so each request looks up.
  const remembersKeys = store.kind === 'sqlite';
  const streak = new ConnectionStreak();
  /**
   * The key each open connection presented last, with its hash: a client sends one key on every request
   * of a connection, and hashing it again was about 4 % of a lone connection's PATCH. Held only while
   * the connection is open (as its request headers are), and compared only with what the same
   * connection sends next.
   */
  const lastKeyOf = new WeakMap<Socket, { key: string; hashText: string; hash: Buffer }>();

  /** One request, from its arrival to its answer: by this path, by the request timeout, or by the app. */
  function exchange(request: IncomingMessage, response: ServerResponse) {
    const started = performance.now();
    const requestId = requestIdFor(request.headers['x-request-id'] as string | undefined);
    // As the app logs it: the path it routed, without the `.json` suffix (an ordinary request has no query).
    const path = request.url!.endsWith('.json') ? request.url!.slice(0, -'.json'.length) : request.url!;
    let userId: string | undefined;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    /** `json`: the answer's body as JSON text. */
    const reply = (status: number, json: JsonText, extra?: readonly string[]) => {
      if (!settle()) return;
      const headers = [...LEADING_HEADERS];
      if (extra) headers.push(...extra);
      // As the app: the rate-limit headers once the key has been accepted.
      if (userId !== undefined) headers.push(...UNLIMITED);
      headers.push('x-request-id', requestId);
      send(response, status, headers, json);
      logAccess(logger, { requestId, method: request.method!, path, status, started, userId });
    };
    const replyError = (known: ErrorAnswer) =>
      reply(
        known.status,
        stringified(problemBody(known.code, known.message, known.errors, requestId)),
        known.retryAfter === undefined ? undefined : ['retry-after', String(known.retryAfter)],
      );
    // As the app's request timeout, from arrival: a 503, unless the update has begun to commit; an
    // update not yet committed then rolls back (http/deadline.ts).
    const deadline = new RequestDeadline(options.requestTimeoutMs);
    const timer = setTimeout(() => {
      if (deadline.expire()) replyError(TIMED_OUT);
    }, options.requestTimeoutMs);
    return {
      deadline,
      /**
       * Whether its update joins a group commit. Counted as the request arrives, whatever becomes of
       * it: a request from another connection means others may arrive beside this one's PATCHes.
       */
      group: streak.shouldGroup(request.socket),
      accepted(principal: Principal) {
        userId = principal.userId;
      },
      reply,
      fail(error: unknown) {
        const known = errorAnswer(error);
        if (!known)
          logger.error?.('request failed', {
            request_id: requestId,
            path,
            error: error instanceof Error ? error.message : String(error),
          });
        replyError(known ?? INTERNAL_ERROR);
      },
      /** The app answers instead; `body` is what this path has read of the request already. */
      handOver(body?: Buffer) {
        if (!settle()) return;
        // @hono/node-server reads a body already taken from the stream from `rawBody`.
        if (body) (request as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        void app(request, response);
      },
    };
  }

  type Exchange = ReturnType<typeof exchange>;

  /**
   * With the key accepted and the body read: the checks the app would make, then the update. With
   * `rememberedAs`, the key was accepted by an earlier request and is checked again by the update.
   */
  function update(
    exchanged: Exchange,
    principal: Principal,
    id: string,
    raw: Buffer,
    rememberedAs: string | undefined,
  ): void {
    // Answered 503 while the body was arriving: the client was told to try again, so nothing is written.
    if (exchanged.deadline.expired) return;
    // Bytes that are not UTF-8 or not JSON: the app words the 400.
    if (!isUtf8(raw)) return exchanged.handOver(raw);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return exchanged.handOver(raw);
    }
    const text = checkBodyText(parsed);
    const checked = !text.tooDeep && text.malformed.length === 0 && TransactionUpdateBody.safeParse(parsed);
    if (!checked || !checked.success) return exchanged.handOver(raw);
    const done = (updated: RenderedTransaction) => {
      if (rememberedAs !== undefined) recordKeyUse(store, principal.keyId);
      exchanged.reply(200, transactionJson(updated));
    };
    const failed = (error: unknown) => {
      // A remembered key is confirmed only by the update. Revoked meanwhile (`KeyNoLongerLive`), or not
      // checked because the update failed before it could (a busy or full database): nothing was
      // written, and the app, which looks the key up itself, answers — a 401, or the update's own answer.
      if (
        rememberedAs !== undefined &&
        !(error instanceof ApiProblem) &&
        !(error instanceof AnsweredAsTimedOut)
      ) {
        acceptedKeys.delete(rememberedAs);
        return exchanged.handOver(raw);
      }
      if (rememberedAs !== undefined) recordKeyUse(store, principal.keyId);
      exchanged.fail(error);
    };
    let result: Awaitable<RenderedTransaction>;
    try {
      result = updateTransaction(store, principal.userId, id, checked.data, runtime.today(), {
        keyId: rememberedAs === undefined ? undefined : principal.keyId,
        deadline: exchanged.deadline,
        group: exchanged.group,
      });
    } catch (error) {
      return failed(error);
    }
    if (!(result instanceof Promise)) return done(result);
    result.then(done).catch(failed);
  }

  return function directOrApp(request, response) {
    const target = ordinary(request, options.maxBodyBytes);
    if (!target) return app(request, response);
    const exchanged = exchange(request, response);
    // The key first, from the headers: a refused one is the app's to answer, before any body is read.
    let presented = lastKeyOf.get(request.socket);
    if (presented?.key !== target.key) {
      const hash = presentedKeyHash(target.key);
      if (!hash) return exchanged.handOver();
      presented = { key: target.key, hashText: hash.toString('latin1'), hash };
      lastKeyOf.set(request.socket, presented);
    }
    const { hash, hashText } = presented;
    const remembered = acceptedKeys.get(hashText);
    const withKey = (principal: Principal | undefined) => {
      if (principal?.scope !== 'read_write') return exchanged.handOver();
      if (!remembered && remembersKeys) {
        if (acceptedKeys.size >= MAX_ACCEPTED_KEYS) acceptedKeys.clear();
        acceptedKeys.set(hashText, principal);
      }
      // As the app once its lookup has accepted the key: the rate-limit headers, the log line's user.
      exchanged.accepted(principal);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          update(exchanged, principal, target.id, raw, remembered ? hashText : undefined);
        } catch (error) {
          exchanged.fail(error); // not reached by any known request: `update` catches what it calls
        }
      });
    };
    if (remembered) return withKey(remembered);
    let principal: Awaitable<Principal | undefined>;
    try {
      principal = authenticateHash(store, hash);
    } catch {
      return exchanged.handOver(); // the key could not be looked up (a busy database): the app says so
    }
    if (!(principal instanceof Promise)) return withKey(principal);
    principal.then(withKey, () => exchanged.handOver()).catch(exchanged.fail);
  };
}

/**
 * `headers`: names and values in turn, without the length, which is added here. ASCII text is sent
 * as Latin-1, the same bytes, copied instead of encoded; Node writes the head as Latin-1 either way.
 */
function send(response: ServerResponse, status: number, headers: string[], json: JsonText): void {
  const { text, ascii } = json;
  headers.push('content-length', String(ascii ? text.length : Buffer.byteLength(text)));
  response.writeHead(status, headers);
  response.end(text, ascii ? 'latin1' : 'utf8');
}
