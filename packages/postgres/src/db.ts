import type { ClientBase, Pool } from 'pg';

/** What `migrate` accepts: a pool, or one idle client (not inside a transaction) the caller manages. */
export type Database = Pool | ClientBase;

function isPool(db: Database): db is Pool {
  // Duck-typed rather than instanceof: the caller's pg may be another copy than ours.
  return typeof (db as Pool).idleCount === 'number';
}

/**
 * Runs `work` in a transaction on one connection (taken from the pool and given back, or the
 * client passed in). Any throw rolls back and is rethrown. A connection whose ROLLBACK fails is in
 * an unknown state, so it is destroyed instead of going back to the pool.
 */
export async function inTransaction<T>(
  db: Database,
  work: (client: ClientBase) => Promise<T>,
  options: { idleTimeoutMs?: number | undefined } = {},
): Promise<T> {
  const pooled = isPool(db) ? await db.connect() : undefined;
  const client: ClientBase = pooled ?? (db as ClientBase);
  let broken: Error | undefined;
  // A checked-out client has no 'error' listener of the pool's: a connection the server ends while the
  // client waits between two statements (a restart, a failover, pg_terminate_backend) would be an
  // unhandled 'error' event that kills the process. Heard here, it fails the transaction's next
  // statement as usual, and the connection is destroyed instead of going back to the pool.
  const onError = (error: Error) => {
    broken ??= error;
  };
  pooled?.on('error', onError);
  try {
    // One round trip: with a bound, the server ends a transaction its client stopped driving (a
    // frozen or partitioned process) instead of holding its locks, the feed's included, for good.
    await client.query(
      options.idleTimeoutMs === undefined
        ? 'BEGIN'
        : `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.round(options.idleTimeoutMs))}`,
    );
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    }
  } finally {
    pooled?.off('error', onError);
    pooled?.release(broken);
  }
}

/** SQLSTATEs after which running the same transaction again may well succeed. */
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export function isRetryable(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && RETRYABLE.has((error as { code?: string }).code ?? '')
  );
}
