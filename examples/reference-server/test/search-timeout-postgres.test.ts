/**
 * A search on PostgreSQL is one statement the server runs to its end: past the request timeout it
 * is stopped by the server (statement_timeout), not left running after the 503 — where a client
 * asking again would stack searches up on the pool and the database's CPU.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAnswer, TIMED_OUT } from '../src/http/error-answer.js';
import { RequestDeadline } from '../src/http/deadline.js';
import type { PostgresAppStore } from '../src/store/postgres.js';
import { ReadTimedOut } from '../src/store/types.js';
import { BACKENDS, startTestServer, withClient, type TestServer } from './helpers.js';

const postgres = BACKENDS.find((b) => b.kind === 'postgres')!;

describe.skipIf(postgres.skip)(`a search past its request timeout ${postgres.title}`, () => {
  let t: TestServer;
  beforeAll(async () => {
    // The table lock below forces the 503; the time only has to leave the last request room on a
    // loaded machine.
    t = await startTestServer(postgres, {}, { http: { requestTimeoutMs: 1_500 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The app's statements now running or waiting that read its transactions, by any connection. */
  const searchesRunning = (table: string) =>
    withClient(async (client) => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE $1`,
        [`%FROM ${table} t WHERE%`],
      );
      return Number(rows[0]!.n);
    });

  /**
   * `work` while a lock no read can pass is held on the app's transactions: a search that nothing
   * stops waits for it for as long as `work` runs. The table's name goes to `work`.
   */
  const withTableLocked = (work: (table: string) => Promise<void>) =>
    withClient(async (holder) => {
      const table = `"${(t.server.runtime.store as PostgresAppStore).schema}".app_transactions`;
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      try {
        await work(table);
      } finally {
        await holder.query('ROLLBACK');
      }
    });

  it('is answered 503 and stopped by the database, and the next search is answered', async () => {
    await withTableLocked(async (table) => {
      const started = performance.now();
      const answer = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?search=coffee');
      expect(answer.status).toBe(503);
      expect(answer.body.error).toBe('service_unavailable');
      expect(performance.now() - started).toBeLessThan(5_000);
      // Stopped by the server at its time limit: within a moment, nothing of it runs or waits.
      let running = await searchesRunning(table);
      for (let i = 0; i < 40 && running > 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        running = await searchesRunning(table);
      }
      expect(running).toBe(0);
    });
    // The connection it held went back to the pool in working order (and its bound with it).
    const after = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?search=e&per_page=5');
    expect(after.status).toBe(200);
    expect(after.body.transactions.length).toBeGreaterThan(0);
  });

  it('bounds each statement by the time left when it starts: a wait for a pooled connection counts', async () => {
    const store = t.server.runtime.store as PostgresAppStore;
    await withTableLocked(async () => {
      // Every pooled connection taken for 700 ms of the read's 1,000.
      const held = await Promise.all(
        Array.from({ length: store.pool.options.max! }, () => store.pool.connect()),
      );
      let released = false;
      const release = () => {
        if (!released) held.forEach((client) => client.release());
        released = true;
      };
      const freed = setTimeout(release, 700);
      try {
        const started = performance.now();
        const error = await store
          .findTransactions(
            t.users.alice,
            { search: 'coffee' },
            { limit: 25, offset: 0 },
            {
              deadline: new RequestDeadline(1_000),
            },
          )
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ReadTimedOut);
        // Stopped at about the deadline (1,000 ms), not a whole budget after the wait (1,700 ms).
        expect(performance.now() - started).toBeLessThan(1_450);
      } finally {
        clearTimeout(freed);
        release();
      }
    });
  });

  it('answers only its own bound’s cancellation as the timeout: another 57014 is a 500', () => {
    const cancelled = Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
    expect(errorAnswer(cancelled)).toBeUndefined();
    expect(errorAnswer(new ReadTimedOut({ cause: cancelled }))).toEqual(TIMED_OUT);
  });
});
