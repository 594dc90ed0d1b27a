/**
 * A transaction created through the API with the key the sync will give a provider row
 * (`external_id` `lunchflow_<id>`, `source` `lunchflow`, as an import by hand or from another tool
 * writes it): the service's importer finds an entry by account, external id and source and updates
 * it, so the sync takes that row over, with the fields the create locked, instead of adding the same
 * purchase beside it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAppStore } from '../src/store/sqlite.js';
import type { AppStore } from '../src/store/types.js';
import { BACKENDS, startSandboxUser, type SandboxUser } from './helpers.js';

interface Row {
  id: string;
  name: string;
  external_id: string | null;
  source: string | null;
  notes: string | null;
}

/** The user's count of rows created through the API, as the bound on them reads it. */
async function createdCount(store: AppStore, userId: string): Promise<number> {
  if (store instanceof SqliteAppStore)
    return (
      store.database.prepare('SELECT created_transactions AS n FROM app_users WHERE id = ?').get(userId) as {
        n: number;
      }
    ).n;
  const pg = store as unknown as {
    pool: { query(sql: string, p: unknown[]): Promise<{ rows: Array<{ n: number }> }> };
    schema: string;
  };
  return (
    await pg.pool.query(`SELECT created_transactions AS n FROM ${pg.schema}.app_users WHERE id = $1`, [
      userId,
    ])
  ).rows[0]!.n;
}

for (const backend of BACKENDS) {
  (backend.skip ? describe.skip : describe)(`a create that names a provider row ${backend.title}`, () => {
    let t: SandboxUser | undefined;
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    /**
     * A user synced once, a day passing at the bank, and the first new posted row (with `also`) of
     * its first account that the next sync would add; `accountId` is the app's id of that account.
     */
    async function nextRowOfTheBank(also: (row: { description: string | null }) => boolean = () => true) {
      t = await startSandboxUser(backend, { seed: 7, historyDays: 5, transactionsPerDay: 4 });
      const { runtime } = t.server;
      const sandbox = runtime.sandbox!;
      await runtime.syncUser(t.userId);
      const known = new Set((await t.listAll<Row>('/api/v1/transactions')).map((row) => row.external_id));
      sandbox.advanceDays(1);
      const account = sandbox.listAccounts()[0]!;
      const upcoming = [...sandbox.transactionsOf(account.id)].find(
        (row) => row.id && also(row) && !known.has(`lunchflow_${row.id}`),
      )!;
      const { body: accounts } = await t.api<{ accounts: Array<{ id: string; name: string }> }>(
        'GET',
        '/api/v1/accounts',
      );
      return { t, runtime, upcoming, accountId: accounts.accounts.find((a) => a.name === account.name)!.id };
    }

    it('is taken over by the sync: one row, its id and locked name kept', async () => {
      const { t, runtime, upcoming, accountId } = await nextRowOfTheBank();
      const key = `lunchflow_${upcoming.id}`;
      const createBody = {
        account_id: accountId,
        name: 'Imported by hand',
        amount: upcoming.amount.replace(/^-/, ''),
        date: upcoming.date,
        external_id: key,
        source: 'lunchflow',
      };
      const created = await t.api<Row>('POST', '/api/v1/transactions', { transaction: createBody });
      expect(created.status).toBe(201);
      expect(await createdCount(runtime.store, t.userId)).toBe(1);

      await runtime.syncUser(t.userId);
      // The sync's row now: it no longer counts against the bound on rows created through the API.
      expect(await createdCount(runtime.store, t.userId)).toBe(0);
      const withKey = (await t.listAll<Row>('/api/v1/transactions')).filter((row) => row.external_id === key);
      expect(withKey.map((row) => [row.id, row.name, row.source])).toEqual([
        [created.body.id, 'Imported by hand', 'lunchflow'],
      ]);
      // A create locks what it saved, as the service's: it sent no notes, so the sync fills them.
      expect(withKey[0]!.notes).toBe(upcoming.description);
      // A repeat of the create answers that one row.
      const again = await t.api<Row>('POST', '/api/v1/transactions', { transaction: createBody });
      expect([again.status, again.body.id]).toEqual([200, created.body.id]);
      // Still one row after another sync.
      await runtime.syncUser(t.userId);
      expect(
        (await t.listAll<Row>('/api/v1/transactions')).filter((row) => row.external_id === key),
      ).toHaveLength(1);
    });

    it('keeps notes the create sent: they are locked', async () => {
      const { t, runtime, upcoming, accountId } = await nextRowOfTheBank((row) => Boolean(row.description));
      const created = await t.api<Row>('POST', '/api/v1/transactions', {
        transaction: {
          account_id: accountId,
          name: 'Imported by hand',
          notes: 'my own note',
          amount: upcoming.amount.replace(/^-/, ''),
          date: upcoming.date,
          external_id: `lunchflow_${upcoming.id}`,
          source: 'lunchflow',
        },
      });
      expect(created.status).toBe(201);
      await runtime.syncUser(t.userId);
      const row = (await t.listAll<Row>('/api/v1/transactions')).find((r) => r.id === created.body.id)!;
      expect([row.name, row.notes]).toEqual(['Imported by hand', 'my own note']);
    });
  });
}
