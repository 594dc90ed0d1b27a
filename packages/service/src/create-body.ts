/**
 * Checks a create before it is sent (`POST /api/v1/transactions`): every required member present,
 * every member one the service reads, ids it can look up, text it can store. Nothing is sent
 * otherwise.
 */
import type { Issue } from './errors.js';
import {
  UUID,
  collectMembers,
  parseMembers,
  referenceIssues,
  refuse,
  type BodyContext,
} from './request-body.js';
import { TransactionCreateSchema, type TransactionCreate } from './schemas.js';

const StrictCreateSchema = TransactionCreateSchema.strict();

/**
 * Returns the members to send under `transaction`: only those the caller set (`undefined` dropped),
 * with the caller's values unchanged. Throws `InvalidRequestError` naming the member otherwise.
 */
export function buildCreateBody(body: unknown, context: BodyContext): TransactionCreate {
  const members = collectMembers(
    body,
    context,
    'transaction to create',
    () => 'null means "not set" on the service; leave the member out',
  );
  const create = parseMembers(
    StrictCreateSchema,
    members,
    context,
    'not a member the service reads on create (it would be ignored silently)',
  );
  const issues: Issue[] = [];
  // The service looks the account up by id; one that is not a UUID is answered with 500.
  if (!UUID.test(create.account_id)) issues.push({ path: 'account_id', message: 'must be a UUID' });
  issues.push(...referenceIssues(create));
  if (issues.length > 0) refuse(issues, context);
  return members as TransactionCreate;
}
