/**
 * The engine makes its records and changes with `new` (keys.ts, changes.ts), so that V8 does not
 * pretenure them; to everyone else they must stay the plain objects they were: the same prototype,
 * the same properties in the same order, so a feed entry's JSON is what it was.
 */
import type { Transaction } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { makeChange } from '../src/engine/changes.js';
import { keyTransactions } from '../src/engine/keys.js';

const row: Transaction = {
  id: 'tx_1',
  accountId: '4711',
  amount: '-1.50',
  currency: 'GBP',
  date: '2026-01-02',
  merchant: 'Corner Cafe',
  description: null,
  isPending: false,
};

describe('records and changes the engine makes', () => {
  it('are plain objects, their properties in the order the feed has always written them', () => {
    const [record] = keyTransactions('conn_1', 'acc_1', [row, { ...row, id: null }]).records;
    const { id, accountId: _, ...fields } = row;
    expect(record).toStrictEqual({
      connectionId: 'conn_1',
      accountId: 'acc_1',
      key: 'id:tx_1',
      providerId: id,
      ...fields,
    });
    expect(JSON.stringify(record)).toBe(
      '{"connectionId":"conn_1","accountId":"acc_1","key":"id:tx_1","providerId":"tx_1","amount":"-1.50",' +
        '"currency":"GBP","date":"2026-01-02","merchant":"Corner Cafe","description":null,"isPending":false}',
    );

    const added = makeChange('transaction', 'added', record!);
    expect(added).toStrictEqual({
      entity: 'transaction',
      op: 'added',
      connectionId: 'conn_1',
      accountId: 'acc_1',
      key: 'id:tx_1',
      record,
    });
    expect(Object.keys(added)).toEqual(['entity', 'op', 'connectionId', 'accountId', 'key', 'record']);
    expect(makeChange('transaction', 'removed', record!)).toStrictEqual({
      ...added,
      op: 'removed',
      record: null,
    });
    expect(makeChange('transaction', 'added', record!, { key: 'id:tx_0', reason: 'posted' })).toStrictEqual({
      ...added,
      replaces: 'id:tx_0',
      reason: 'posted',
    });
  });
});
