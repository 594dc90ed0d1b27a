/**
 * A bank the user removed and linked again: the provider lists the account under a new id, with its
 * history again. The status and the page say which account continues which (nothing is merged).
 */
import { addDays } from '@finsync/provider';
import type { SandboxAccountSpec, SandboxOptions } from '@finsync/provider/sandbox';
import { describe, expect, it } from 'vitest';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import { createApiKey, createUser } from '../src/users.js';
import { overview } from '../src/web/overview.js';
import { BACKENDS, testDatabase } from './helpers.js';

const bank = { institutionName: 'Northern Bank', provider: 'gocardless', currency: 'GBP' };
const current: SandboxAccountSpec = { id: 4711, name: 'Current Account', ...bank };
const savings: SandboxAccountSpec = { id: 4712, name: 'Savings', profile: 'savings', ...bank };
const OPTIONS = { seed: 11, historyDays: 40, transactionsPerDay: 3 };

interface Status {
  accounts: Array<{ id: string; name: string; state: string }>;
  account_successors: Array<{
    account_id: string;
    continues_account_id: string;
    rows: number;
    shared_rows: number;
  }>;
}

for (const backend of BACKENDS) {
  (backend.skip ? describe.skip : describe)(`a bank linked again ${backend.title}`, () => {
    it('is named in the status and on the page: the new account continues the old one', async () => {
      const db = testDatabase(backend);
      const open = (sandbox: SandboxOptions) =>
        startReferenceServer({
          dataDir: db.dataDir,
          database: db.database,
          port: 0,
          scheduler: false,
          sandbox,
        });
      let server: RunningServer | undefined;
      try {
        // Today's sandbox, then one ten days on: the server's today follows a sandbox ahead of the calendar.
        server = await open({ ...OPTIONS, accounts: [savings, current] });
        const start = server.runtime.today();
        const user = await createUser(server.runtime.store, 'alice');
        const { key } = await createApiKey(server.runtime.store, user.id, { name: 't' });
        await server.runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
        await server.runtime.syncUser(user.id);
        const status = async () =>
          (await (
            await fetch(`${server!.url}/api/v1/sync/status`, { headers: { 'X-Api-Key': key } })
          ).json()) as Status;
        expect((await status()).account_successors).toEqual([]);
        await server.close();

        // Ten days on, the user has removed the bank and linked it again.
        server = await open({
          ...OPTIONS,
          // The same bank ten days on: its history still starts where it did.
          today: addDays(start, 10),
          historyDays: OPTIONS.historyDays + 10,
          accounts: [savings, { ...current, id: 9711, historyOf: 4711 }],
        });
        await server.runtime.syncUser(user.id);
        const after = await status();
        const [old, linked] = ['gone', 'active'].map((state) =>
          after.accounts.find((a) => a.name === 'Current Account' && a.state === state)!,
        );
        expect(old).toBeDefined();
        expect(linked).toBeDefined();
        expect(after.account_successors).toHaveLength(1);
        const [pair] = after.account_successors;
        expect(pair).toMatchObject({ account_id: linked!.id, continues_account_id: old!.id });
        expect(pair!.shared_rows).toBeGreaterThan(0.95 * pair!.rows);
        // The other account is untouched by the relinking: its balance still adds up.
        const { body } = {
          body: (await (
            await fetch(`${server.url}/api/v1/sync/status`, { headers: { 'X-Api-Key': key } })
          ).json()) as { accounts: Array<{ name: string; balance_check: { status: string } | null }> },
        };
        expect(body.accounts.find((a) => a.name === 'Savings')?.balance_check?.status).not.toBe('mismatch');
        // Asked again with nothing new: the same answer (kept until the feed moves).
        expect((await status()).account_successors).toEqual(after.account_successors);

        const page = await overview(server.runtime, { userId: user.id, scope: 'read' }, undefined);
        expect(page.successors).toEqual([
          {
            account: 'Current Account',
            continues: 'Current Account',
            shared_rows: pair!.shared_rows,
            rows: pair!.rows,
          },
        ]);
      } finally {
        await server?.close();
        await db.cleanup();
      }
    });
  });
}
