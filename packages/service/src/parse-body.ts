/** Reads a 2xx body with its schema, or throws `InvalidResponseError` naming the field at fault. */
import type { z } from 'zod';
import { InvalidResponseError, formatIssuePath } from './errors.js';
import type { JsonResponse } from './http.js';

export function parseBody<S extends z.ZodType>(schema: S, response: JsonResponse): z.output<S> {
  const result = schema.safeParse(response.body);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, 10)
    .map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
  const first = issues[0];
  throw new InvalidResponseError(
    `unexpected response from ${response.method} ${response.path}${first ? `: ${first.path || '(body)'}: ${first.message}` : ''}`,
    { method: response.method, path: response.path, status: response.status, issues },
  );
}
