/**
 * A connection the server ends while a transaction waits between two statements (a restart, a
 * failover, `pg_terminate_backend`): the transaction fails with the error, the process lives on, and
 * the pool serves the next one.
 */
import { postgresSuiteName } from '@finsync/test-utils';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../src/db.js';
import { adminPool, url } from './helpers.js';

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
});
