/** The PostgreSQL unit of work sends its client one query at a time, even when reads are asked for together. */
import { describe, expect, it } from 'vitest';
import { oneQueryAtATime, postgresUnitOfWork, type Queryable } from '../src/store/postgres-unit-of-work.js';
import { renderSteps } from '../src/render.js';
import { runSteps } from '../src/store/steps.js';

/** A client that answers after a tick and records how many queries it was running at once. */
function recordingClient(answer: (sql: string) => unknown[] = () => []) {
  const seen = { sql: [] as string[], mostAtOnce: 0, running: 0 };
  const client = {
    query: async (sql: string) => {
      seen.sql.push(sql);
      seen.running++;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      seen.running--;
      if (sql.includes('fail')) throw new Error('refused');
      return { rows: answer(sql) };
    },
  };
  return { client, seen };
}

describe('the PostgreSQL unit of work', () => {
  it('renders a row with one query at a time on its client, in the order asked', async () => {
    const { client, seen } = recordingClient((sql) =>
      sql.includes('app_accounts') ? [{ id: 'a', name: 'Current', account_type: 'depository' }] : [],
    );
    const unit = postgresUnitOfWork(oneQueryAtATime(client as unknown as Queryable), '"s"');
    const row = {
      id: 't',
      account_id: 'a',
      external_id: '',
      source: '',
      date: '2026-01-02',
      amount: '1',
      currency: 'GBP',
      name: 'x',
      notes: null,
      category_id: 'c',
      merchant_id: 'm',
      created_at: '2026-01-02T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    };
    const [rendered] = await runSteps(renderSteps(unit, [row]));
    expect(seen.sql).toHaveLength(4);
    expect(seen.mostAtOnce).toBe(1);
    expect(rendered).toMatchObject({ id: 't', account: { name: 'Current' }, category: null, tags: [] });
  });

  it('a failed query does not stop the ones after it', async () => {
    const { client, seen } = recordingClient();
    const serial: Queryable = oneQueryAtATime(client as unknown as Queryable);
    const results = await Promise.allSettled([
      serial.query('select fail'),
      serial.query('select 1'),
      serial.query('select 2'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(seen.mostAtOnce).toBe(1);
  });
});
