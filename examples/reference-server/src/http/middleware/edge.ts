/**
 * What every request passes first: an id (taken from `X-Request-Id` when the caller sends a sane
 * one), one JSON access-log line when it ends (never a key, a body or a query string), and a
 * bound on the body read while it is read.
 */
import type { ProviderLogger } from '@finsync/provider';
import type { MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { RequestDeadline } from '../deadline.js';
import type { AppEnv } from '../env.js';
import { problem } from '../problem-response.js';

const UNSAFE_ID = /[^\w\-=]/;

/** The caller's `X-Request-Id` when it is short and plain (letters, digits, `_`, `-`, `=`), else a new UUID. */
export function requestIdFor(presented: string | undefined): string {
  return presented && presented.length <= 255 && !UNSAFE_ID.test(presented) ? presented : randomUUID();
}

export function requestIds(): MiddlewareHandler<AppEnv> {
  return async function requestIdHeader(c, next) {
    const id = requestIdFor(c.req.header('x-request-id'));
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
}

/**
 * On every `/api` answer: it holds one user's data, so no cache keeps it (a proxy set to cache
 * everything would otherwise hand it to the next caller, whatever their key), and no browser guesses
 * its type. The PATCH answered on `node:http` sends the same (direct-update.ts).
 */
export const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export const apiHeaders: MiddlewareHandler<AppEnv> = async function apiHeaders(c, next) {
  await next();
  for (const [name, value] of Object.entries(API_HEADERS)) c.header(name, value);
};

/** What the access-log line of a request says (and nothing else: no key, body or query string). */
export interface AccessLogEntry {
  requestId: string | undefined;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  /** `performance.now()` when the request arrived. */
  started: number;
  userId: string | undefined;
}

export function logAccess(logger: ProviderLogger, entry: AccessLogEntry): void {
  logger.info?.('request', {
    request_id: entry.requestId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    duration_ms: Math.round((performance.now() - entry.started) * 10) / 10,
    user_id: entry.userId,
  });
}

/**
 * Answers a request still running after `ms` with `exception()` (a 503), as `hono/timeout` does, but
 * never once its write has begun to commit, and a write not yet committed is then rolled back: the
 * request's `deadline` (http/deadline.ts), which its units of work take.
 */
export function requestTimeout(ms: number, exception: () => HTTPException): MiddlewareHandler<AppEnv> {
  return async function timeoutAfter(c, next) {
    const deadline = new RequestDeadline(ms);
    c.set('deadline', deadline);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (deadline.expire()) reject(exception());
      }, ms);
    });
    try {
      await Promise.race([next(), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
}

export function accessLog(logger: ProviderLogger): MiddlewareHandler<AppEnv> {
  return async function accessLogLine(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      logAccess(logger, {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        started,
        userId: c.get('principal')?.userId,
      });
    }
  };
}

/**
 * Refuses a body over `maxBytes`. A body framed by `Content-Length` is judged from the header alone
 * (Node's parser never delivers more bytes than it declares), so the common request is never turned
 * into a full Fetch `Request` — that costs more than the rest of a PATCH. A chunked body is counted
 * while it is read: the server never holds more than `maxBytes`.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  // The rest of the body is never read: the connection cannot carry another request.
  const tooLarge = (c: Parameters<typeof problem>[0]) =>
    problem(c, 413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes`, undefined, {
      Connection: 'close',
    });
  const whileReading = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => tooLarge(c as Parameters<typeof problem>[0]),
  });
  return async function bodySize(c, next) {
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (chunked) return whileReading(c, next);
    if (length === undefined) return next();
    const bytes = Number(length);
    if (!Number.isSafeInteger(bytes) || bytes > maxBytes) return tooLarge(c as Parameters<typeof problem>[0]);
    return next();
  };
}
