/**
 * Checks an update before it is sent: the body the client emits is one the service applies the way the
 * caller meant, or nothing is sent at all ("liberal in what we accept, strict in what we emit").
 */
import type { Issue } from './errors.js';
import { collectMembers, parseMembers, referenceIssues, refuse, type BodyContext } from './request-body.js';
import { TransactionUpdateSchema, type TransactionUpdate } from './schemas.js';

const StrictUpdateSchema = TransactionUpdateSchema.strict();

const NULL_MEANING: Record<string, string> = {
  notes: 'null leaves the notes unchanged on the service; send "" to clear them, or leave notes out',
  category_id: 'the service cannot clear a category (null is ignored); leave category_id out',
  merchant_id: 'the service cannot clear a merchant (null is ignored); leave merchant_id out',
  tag_ids: 'null removes every tag on the service; send [] to say so',
};

/**
 * Returns the members to send under `transaction`: only those the caller set (`undefined` dropped),
 * with the caller's values unchanged. Throws `InvalidRequestError` naming the member otherwise.
 */
export function buildUpdateBody(body: unknown, context: BodyContext): Partial<TransactionUpdate> {
  const members = collectMembers(
    body,
    context,
    'update',
    (name) => NULL_MEANING[name] ?? 'null leaves the field unchanged on the service; leave the member out',
  );
  const update = parseMembers(
    StrictUpdateSchema,
    members,
    context,
    'not a member the service updates (it would be ignored silently)',
  );
  const issues: Issue[] = referenceIssues(update);
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
