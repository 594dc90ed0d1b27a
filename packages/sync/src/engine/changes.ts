/** The one place a change to the mirror is built, so the shape of a feed entry is written once. */
import { plainObjectConstructor } from '@finsync/internals/plain-object';
import type {
  AccountChange,
  Change,
  ChangeOp,
  HoldingChange,
  MirrorAccount,
  MirrorHolding,
  MirrorTransaction,
  ReplacementReason,
  TransactionChange,
} from '../model.js';

/**
 * A change: a plain object made by `new`, not by an object literal, so V8 does not pretenure a page's
 * changes (see `@finsync/internals/plain-object`).
 */
const PlainChange = plainObjectConstructor(function (
  this: Record<string, unknown>,
  entity: Change['entity'],
  op: ChangeOp,
  connectionId: string,
  accountId: string,
  key: string,
  record: Change['record'],
) {
  this['entity'] = entity;
  this['op'] = op;
  this['connectionId'] = connectionId;
  this['accountId'] = accountId;
  this['key'] = key;
  this['record'] = record;
});

/** The other side of a replacement (see SPEC.md, "Replacement rules"). */
export interface ReplacementLink {
  key: string;
  reason: ReplacementReason;
}

/**
 * A change to one record. `record` is the record after the change, or for `removed` the record
 * that goes (the change then carries `null`): the change's identity is read from it either way.
 * A `link` on a transaction names the row it `replaces` (on `added`) or is `replacedBy` (on
 * `removed`), with the reason on both.
 */
export function makeChange(entity: 'account', op: ChangeOp, record: MirrorAccount): AccountChange;
export function makeChange(entity: 'holding', op: ChangeOp, record: MirrorHolding): HoldingChange;
export function makeChange(entity: 'transaction', op: ChangeOp, record: MirrorTransaction): TransactionChange;
export function makeChange(
  entity: 'transaction',
  op: 'added' | 'removed',
  record: MirrorTransaction,
  link: ReplacementLink | undefined,
): TransactionChange;
export function makeChange(
  entity: 'account' | 'holding' | 'transaction',
  op: ChangeOp,
  record: MirrorAccount | MirrorHolding | MirrorTransaction,
  link?: ReplacementLink,
): Change {
  // An account is its own scope: its key is its id.
  const accountId = 'accountId' in record ? record.accountId : record.id;
  const key = 'key' in record ? record.key : record.id;
  const change = new PlainChange(
    entity,
    op,
    record.connectionId,
    accountId,
    key,
    op === 'removed' ? null : record,
  ) as unknown as Change;
  if (!link) return change;
  // Only the transaction overloads take a link.
  const row = change as TransactionChange;
  return op === 'added'
    ? { ...row, replaces: link.key, reason: link.reason }
    : { ...row, replacedBy: link.key, reason: link.reason };
}
