/**
 * Checks an update before it is sent: the body the client emits is one the service applies the way the
 * caller meant, or nothing is sent at all ("liberal in what we accept, strict in what we emit").
 */
import { InvalidRequestError, formatIssuePath, type Issue } from './errors.js';
import { TransactionUpdateSchema, type TransactionUpdate } from './schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const StrictUpdateSchema = TransactionUpdateSchema.strict();

const NULL_MEANING: Record<string, string> = {
  notes: 'null leaves the notes unchanged on the service; send "" to clear them, or leave notes out',
  category_id: 'the service cannot clear a category (null is ignored); leave category_id out',
  merchant_id: 'the service cannot clear a merchant (null is ignored); leave merchant_id out',
  tag_ids: 'null removes every tag on the service; send [] to say so',
};

function refuse(issues: Issue[], context: { method: string; path: string }): never {
  const first = issues[0];
  const summary = first ? `${first.path || '(body)'}: ${first.message}` : 'invalid';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new InvalidRequestError(`refused to send ${context.method} ${context.path}: ${summary}${more}`, {
    ...context,
    issues,
  });
}

/**
 * Returns the members to send under `transaction`: only those the caller set (`undefined` dropped),
 * with the caller's values unchanged. Throws `InvalidRequestError` naming the member otherwise.
 */
export function buildUpdateBody(
  body: unknown,
  context: { method: string; path: string },
): Partial<TransactionUpdate> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    refuse([{ path: '', message: 'the update must be an object of members' }], context);
  }
  const members: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value === null) {
      issues.push({
        path: name,
        message: NULL_MEANING[name] ?? 'null leaves the field unchanged on the service; leave the member out',
      });
      continue;
    }
    members[name] = value;
  }
  if (issues.length > 0) refuse(issues, context);

  const parsed = StrictUpdateSchema.safeParse(members);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          issues.push({
            path: key,
            message: `not a member the service updates (it would be ignored silently)`,
          });
        }
      } else {
        issues.push({ path: formatIssuePath(issue.path), message: issue.message });
      }
    }
    refuse(issues, context);
  }

  const update = parsed.data;
  for (const name of ['category_id', 'merchant_id'] as const) {
    const id = update[name];
    // A non-UUID id is cast to nil by the service, which would *clear* the field instead.
    if (id !== undefined && !UUID.test(id)) issues.push({ path: name, message: 'must be a UUID' });
  }
  update.tag_ids?.forEach((id, index) => {
    // An unknown or non-UUID tag id makes the service answer 500.
    if (!UUID.test(id)) issues.push({ path: `tag_ids[${index}]`, message: 'must be a UUID' });
  });
  if (update.nature !== undefined && update.amount === undefined) {
    issues.push({ path: 'nature', message: 'nature has no effect without amount; send amount too' });
  }
  if (Object.keys(members).length === 0) {
    issues.push({
      path: '',
      message: 'an update needs at least one member (the service answers an empty one with 500)',
    });
  }
  if (issues.length > 0) refuse(issues, context);
  return members as Partial<TransactionUpdate>;
}
