/**
 * A batch that writes one table and nothing else — the account states (an account's closing write in a
 * routine re-sync that found nothing new) or the connection's state (a run's start and end) — in one
 * statement, its fence in it. Through `writeBatch` it took four round trips (`BEGIN`, the fence, the
 * upsert, `COMMIT`); these are most of what a fleet's routine re-syncs write (docs/benchmarks.md,
 * "Fleet"). One statement commits on its own, whole or not at all, so nothing is lost by leaving out
 * the transaction.
 */
import type { WriteBatch } from '@finsync/sync';
import type { Pool } from 'pg';
import { codec, toColumns } from './rows.js';
import type { Statements } from './sql.js';
import { ensureHeld, fenceParams, lastById, stateKey, type FenceAnswer } from './write.js';

interface OneStatement {
  text: string;
  /** The rows, a column an array. */
  columns: string[];
  fence: WriteBatch['fence'];
}

/** The batch as one statement, when it writes only the account states or only connections; else undefined. */
export function oneStatement(sql: Statements, batch: WriteBatch): OneStatement | undefined {
  if (batch.changes.length > 0 || (batch.superseded?.length ?? 0) > 0) return undefined;
  if ((batch.releasedSuperseded?.length ?? 0) > 0) return undefined;
  const connections = batch.connections ?? [];
  const states = batch.accountStates ?? [];
  if (connections.length > 0 === states.length > 0) return undefined;
  const [plain, fenced, columns] =
    connections.length > 0
      ? [
          sql.upsertConnections,
          sql.fencedUpsertConnections,
          toColumns(
            lastById(connections, (c) => c.id).map(codec.connection.values),
            codec.connection.columns.length,
          ),
        ]
      : [
          sql.upsertAccountStates,
          sql.fencedUpsertAccountStates,
          toColumns(
            lastById(states, stateKey).map(codec.accountState.values),
            codec.accountState.columns.length,
          ),
        ];
  const { fence } = batch;
  return { text: fence ? fenced : plain, columns, fence };
}

/** Runs it; a fence that does not hold (a lost lease, a removed connection) wrote nothing. */
export async function writeOne(pool: Pool, one: OneStatement): Promise<void> {
  const { fence } = one;
  if (!fence) {
    await pool.query(one.text, one.columns);
    return;
  }
  // Worked out at each attempt, as `writeBatch` does: a fence without `at` is judged at its time.
  const { rows } = await pool.query<FenceAnswer>(one.text, [...one.columns, ...fenceParams(fence)]);
  ensureHeld(fence, rows);
}
