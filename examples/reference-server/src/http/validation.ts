/**
 * How a request that fails its route's schema is answered: a bad query or path parameter is a 400,
 * a body of the wrong shape a 400 (no `transaction`/`tag` member) or a 422 naming each member, in the
 * service's error shape. Nothing has been read from the database yet, so nothing changes.
 */
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import type { AppEnv } from './env.js';
import { problem } from './problem-response.js';

type HookResult = { success: true } | { success: false; error: ZodError; target: string };

const ROOT_MEMBERS = new Set(['transaction', 'tag']);

export function validationHook(result: HookResult, c: Context<AppEnv>): Response | undefined {
  if (result.success) return undefined;
  const issues = result.error.issues;
  const messages = issues.map((issue) => {
    const path = issue.path.map(String).filter((p) => !ROOT_MEMBERS.has(p));
    const message = issue.message;
    // Messages written for the member already name it; zod's own do not.
    if (issue.code === 'custom' || /must|too long|can hold/.test(message)) return message;
    return path.length > 0 ? `${path.join('.')}: ${message}` : message;
  });
  if (result.target !== 'json') return problem(c, 400, 'bad_request', messages[0]!, messages);
  const rootMissing = issues.some(
    (issue) =>
      issue.path.length <= 1 &&
      issue.code === 'invalid_type' &&
      ROOT_MEMBERS.has(String(issue.path[0] ?? 'transaction')),
  );
  if (rootMissing) {
    const member = String(issues[0]!.path[0] ?? 'transaction');
    return problem(c, 400, 'bad_request', `Required parameter "${member}" is missing or empty`);
  }
  return problem(c, 422, 'validation_failed', failure(c), messages);
}

/** The service's message for a write that failed validation. */
function failure(c: Context<AppEnv>): string {
  const { method, path } = c.req;
  if (path.endsWith('/tags')) return 'Tag could not be created';
  if (path.endsWith('/provider')) return 'Provider key could not be saved';
  return method === 'POST' ? 'Transaction could not be created' : 'Transaction could not be updated';
}
