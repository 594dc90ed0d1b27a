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
  const body: Record<string, unknown> = { error: code, message };
  if (errors) body.errors = errors;
  const requestId = c.get('requestId');
  if (requestId) body.request_id = requestId;
  return c.json(body, status as ContentfulStatusCode, headers);
}
