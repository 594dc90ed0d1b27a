/**
 * What every request passes first: an id (taken from `X-Request-Id` when the caller sends a sane
 * one), one JSON access-log line when it ends (never a key, a body or a query string), and a
 * bound on the body read while it is read.
 */
import type { ProviderLogger } from '@finsync/provider';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import type { AppEnv } from '../env.js';
import { problem } from '../problem-response.js';

export const requestIds = (): MiddlewareHandler<AppEnv> => requestId({ headerName: 'X-Request-Id' });

export function accessLog(logger: ProviderLogger): MiddlewareHandler<AppEnv> {
  return async function accessLogLine(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info?.('request', {
        request_id: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        user_id: c.get('principal')?.userId,
      });
    }
  };
}

/** Refuses a body over `maxBytes` while reading it: the server never holds more than that. */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    // The rest of the body is never read: the connection cannot carry another request.
    onError: (c) =>
      problem(
        c as Parameters<typeof problem>[0],
        413,
        'payload_too_large',
        `The request body is larger than ${maxBytes} bytes`,
        undefined,
        { Connection: 'close' },
      ),
  });
}
