/**
 * A connection the server ends while a transaction waits between two statements (a restart, a
 * failover, `pg_terminate_backend`): the transaction fails with the error, the process lives on, and
 * the pool serves the next one. And a writer that stops driving its transaction (frozen, partitioned)
 * has it ended by the server after `idleInTransactionTimeoutMs`, so it cannot hold the feed's lock
 * and stall every other writer for good.
 */
import { fixtures } from '@finsync/sync/testing';
import { postgresSuiteName } from '@finsync/test-utils';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../src/db.js';
import { PostgresStorage } from '../src/index.js';
import { adminPool, dropSchema, url } from './helpers.js';
import { freshSchemaName } from '@finsync/test-utils';

describe.skipIf(!url)(postgresSuiteName('a connection the server ends mid-transaction'), () => {
  it('fails that transaction, not the process, and the pool goes on', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    // The pool's own listener, as PostgresStorage has: idle clients' errors are heard there.
    pool.on('error', () => undefined);
    try {
      const outcome = await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await adminPool().query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // The server's goodbye arrives while the client waits between statements.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await client.query('SELECT 1');
        return 'committed';
      }).catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(Error);
      const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows[0]!.one).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('ends a transaction its writer stopped driving, and another writer of the feed goes on', async () => {
    const schema = freshSchemaName('idle_tx');
    const frozen = new PostgresStorage({ connectionString: url, schema, idleInTransactionTimeoutMs: 300 });
    const other = new PostgresStorage({ connectionString: url, schema });
    try {
      await frozen.init();
      await other.init();
      const pool = frozen.pool;
      // What a writer frozen after taking the feed's lock looks like from the server: a transaction
      // holding it, and nothing more from the client.
      const stalled = inTransaction(
        pool,
        async (client) => {
          await client.query('SELECT pg_advisory_xact_lock(424242)');
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          await client.query('SELECT 1');
        },
        { idleTimeoutMs: 300 },
      ).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      // Another session wants the same lock: it gets it once the server ends the idle transaction.
      await adminPool().query('SELECT pg_advisory_lock(424242), pg_advisory_unlock(424242)');
      expect(Date.now() - started).toBeLessThan(1_300);
      expect(await stalled).toBeInstanceOf(Error);
      // The storage itself writes through it: a write after that goes through.
      await other.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
      expect((await frozen.getConnection('c1'))?.status).toBe('active');
      expect(() => new PostgresStorage({ connectionString: url, idleInTransactionTimeoutMs: 0 })).toThrow(
        RangeError,
      );
    } finally {
      await frozen.close();
      await other.close();
      await dropSchema(schema);
    }
  });
});
