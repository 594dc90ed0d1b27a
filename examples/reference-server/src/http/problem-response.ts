/** The error body every route answers with: the service's `{ error, message, errors? }`, plus the request id. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './env.js';

export function problem(
  c: Context<AppEnv>,
  status: number,
  code: string,
  message: string,
  errors?: string[],
  headers?: Record<string, string>,
): Response {
  return c.json(
    problemBody(code, message, errors, c.get('requestId')),
    status as ContentfulStatusCode,
    headers,
  );
}

/** The error body itself, for an answer written without a Hono context (see direct-update.ts). */
export function problemBody(
  code: string,
  message: string,
  errors: string[] | undefined,
  requestId: string | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = { error: code, message };
  if (errors) body.errors = errors;
  if (requestId) body.request_id = requestId;
  return body;
}
