import { POSTGRES_SKIP_REASON, testPostgresUrl } from '@finsync/test-utils';
import pg from 'pg';
import { afterAll } from 'vitest';

/**
 * Where the PostgreSQL tests run; unset, they are skipped and say so
 * (`describe.skipIf(!url)(postgresSuiteName(…), …)`).
 */
export const url: string | undefined = testPostgresUrl();

let admin: pg.Pool | undefined;

/** A pool for looking behind the storage's back and for dropping schemas; ended after the file. */
export function adminPool(): pg.Pool {
  if (!url) throw new Error(POSTGRES_SKIP_REASON);
  admin ??= new pg.Pool({ connectionString: url, max: 4 });
  return admin;
}

afterAll(async () => {
  await admin?.end();
  admin = undefined;
});

export async function dropSchema(schema: string): Promise<void> {
  await adminPool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/**
 * A pool whose every statement (including BEGIN/COMMIT and those pool.query runs on a pooled
 * client) is counted: round trips, measured without looking at the clock.
 */
export function countingPool(): { pool: pg.Pool; count: () => number; reset: () => void } {
  if (!url) throw new Error(POSTGRES_SKIP_REASON);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let queries = 0;
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      queries += 1;
      return original(...args);
    };
  });
  return {
    pool,
    count: () => queries,
    reset: () => {
      queries = 0;
    },
  };
}

/**
 * A pool whose COMMITs wait at the door until `open()`: another process can act while a batch is
 * written but not yet committed. `reached` resolves when the first COMMIT arrives.
 */
export function gatedCommitPool(): { pool: pg.Pool; reached: Promise<void>; open: () => void } {
  if (!url) throw new Error(POSTGRES_SKIP_REASON);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = async (...args: unknown[]) => {
      if (args[0] === 'COMMIT') {
        arrived();
        await gate;
      }
      return original(...args);
    };
  });
  return { pool, reached, open };
}

/**
 * Resolves once a statement on `schema` waits on a lock (polled). The storage names its tables with
 * the schema, so a wait of another test file, on a schema of its own, does not count. With `unless`,
 * it also resolves (and stops polling) once that settles: a statement that never waits.
 */
export async function someoneWaitsOnALock(schema: string, unless?: Promise<unknown>): Promise<void> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  void unless?.then(done, done);
  for (;;) {
    if (settled) return;
    const { rows } = await adminPool().query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND strpos(query, $1) > 0`,
      [schema],
    );
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
