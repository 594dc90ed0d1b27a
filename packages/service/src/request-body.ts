/**
 * What the update and create body checks share: the body must be an object of members, `undefined`
 * members are dropped, `null` members and unknown members are refused, and the ids the service looks
 * up must be UUIDs. A refusal is an `InvalidRequestError` naming the member; nothing is sent.
 */
import type { z } from 'zod';
import { InvalidRequestError, formatIssuePath, type Issue } from './errors.js';

export interface BodyContext {
  method: string;
  path: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function refuse(issues: Issue[], context: BodyContext): never {
  const first = issues[0];
  const summary = first ? `${first.path || '(body)'}: ${first.message}` : 'invalid';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new InvalidRequestError(`refused to send ${context.method} ${context.path}: ${summary}${more}`, {
    ...context,
    issues,
  });
}

/**
 * The members the caller set (`undefined` dropped), in their order. A body that is not an object,
 * or a `null` member, is refused; `nullMeaning` says what a `null` would have done on the service.
 */
export function collectMembers(
  body: unknown,
  context: BodyContext,
  what: string,
  nullMeaning: (member: string) => string,
): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    refuse([{ path: '', message: `the ${what} must be an object of members` }], context);
  }
  const members: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value === null) issues.push({ path: name, message: nullMeaning(name) });
    else members[name] = value;
  }
  if (issues.length > 0) refuse(issues, context);
  return members;
}

/** Parses `members` with a strict schema, or refuses with every issue (unknown members included). */
export function parseMembers<S extends z.ZodType>(
  schema: S,
  members: Record<string, unknown>,
  context: BodyContext,
  unknownMessage: string,
): z.output<S> {
  const parsed = schema.safeParse(members);
  if (parsed.success) return parsed.data;
  const issues: Issue[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: key, message: unknownMessage });
    } else {
      issues.push({ path: formatIssuePath(issue.path), message: issue.message });
    }
  }
  refuse(issues, context);
}

/**
 * `category_id`, `merchant_id` and every tag id must be UUIDs: the service casts a category or
 * merchant id that is not one to nil (which *clears* the field on update), and answers an unknown
 * tag id with 500.
 */
export function referenceIssues(body: {
  category_id?: string | undefined;
  merchant_id?: string | undefined;
  tag_ids?: string[] | undefined;
}): Issue[] {
  const issues: Issue[] = [];
  for (const name of ['category_id', 'merchant_id'] as const) {
    const id = body[name];
    if (id !== undefined && !UUID.test(id)) issues.push({ path: name, message: 'must be a UUID' });
  }
  body.tag_ids?.forEach((id, index) => {
    if (!UUID.test(id)) issues.push({ path: `tag_ids[${index}]`, message: 'must be a UUID' });
  });
  return issues;
}
