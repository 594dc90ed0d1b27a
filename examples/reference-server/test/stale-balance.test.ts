/**
 * A sync whose balance read fails keeps the balance before it (the rows still sync). The status and the
 * page say so, and the page's chart, which walks back from the balance through the rows it counts, is
 * not drawn from a balance that did not count the newer rows.
 */
import { toDecimalString } from '@finsync/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { overview } from '../src/web/overview.js';
import { BACKENDS, startSandboxUser, type SandboxUser } from './helpers.js';

interface StatusAccount {
  id: string;
  name: string;
  balance: string | null;
  balance_stale: boolean;
  balance_check: { status: string } | null;
  state: string;
}

for (const backend of BACKENDS) {
  (backend.skip ? describe.skip : describe)(`a balance the last sync could not read ${backend.title}`, () => {
    let t: SandboxUser | undefined;
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    /** Alice on the sandbox (nothing synced yet), her runtime and the sandbox. */
    async function start() {
      t = await startSandboxUser(backend, { seed: 11, historyDays: 20, transactionsPerDay: 3 });
      return { sandbox: t.server.runtime.sandbox!, runtime: t.server.runtime };
    }
    /**
     * The bank's balance of the current account today, as the API writes decimals: the sandbox writes
     * every minor digit (`2360.60`), the server none it does not need (`2360.6`).
     */
    const bankBalance = () => toDecimalString(t!.server.runtime.sandbox!.balanceOf('4711').amount);
    /** The current account as the API's status shows it. */
    const current = async () => {
      const { body } = await t!.api<{ accounts: StatusAccount[] }>('GET', '/api/v1/sync/status');
      return body.accounts.find((a) => a.name === 'Current Account')!;
    };
    /** The page's data with `accountId` chosen. */
    const pageOf = (accountId: string) =>
      overview(t!.server.runtime, { userId: t!.userId, scope: 'read_write' }, accountId);
    /** The provider answers 503 to the current account's `endpoint` three times: past the client's retries. */
    const failReads = (endpoint: 'balance' | 'transactions') =>
      t!.server.runtime.sandbox!.faults.add({
        kind: 'status',
        status: 503,
        times: 3,
        match: { accountId: '4711', endpoint },
      });

    it('is shown with its age, and the chart waits for a sync that reads the balance', async () => {
      t = await startSandboxUser(backend, { seed: 11, historyDays: 20, transactionsPerDay: 3 });
      const sandbox = t.server.runtime.sandbox!;
      const { runtime } = t.server;
      const current = async () => {
        const { body } = await t!.api<{ accounts: StatusAccount[] }>('GET', '/api/v1/sync/status');
        return body.accounts.find((a) => a.name === 'Current Account')!;
      };
      const page = async (accountId: string) => {
        const data = await overview(runtime, { userId: t!.userId, scope: 'read_write' }, accountId);
        return { ...data, account: data.accounts.find((a) => a.id === accountId)! };
      };

      await runtime.syncUser(t.userId);
      sandbox.advanceDays(1);
      await runtime.syncUser(t.userId);
      const fresh = await current();
      expect(fresh.balance).toBe(bankBalance());
      expect(fresh.balance_stale).toBe(false);
      const clean = await page(fresh.id);
      expect(clean.account.balance_stale).toBe(false);
      expect(clean.chart).not.toBeNull();
      expect(clean.chart_note).toBeNull();

      // Two days on, the balance read fails three times (past the client's retries); the rows sync.
      sandbox.faults.add({
        kind: 'status',
        status: 503,
        times: 3,
        match: { accountId: '4711', endpoint: 'balance' },
      });
      sandbox.advanceDays(2);
      expect((await runtime.syncUser(t.userId)).ok).toBe(false);
      const stale = await current();
      expect(stale.balance).toBe(fresh.balance);
      expect(stale.balance).not.toBe(bankBalance());
      expect(stale.balance_stale).toBe(true);
      const shown = await page(stale.id);
      expect(shown.account.balance_stale).toBe(true);
      expect(shown.chart).toBeNull();
      expect(shown.chart_note).toMatch(/could not read this account's balance, and none has since/);
      // Another account's balance was read: its chart is drawn as before.
      const savings = (
        await t.api<{ accounts: StatusAccount[] }>('GET', '/api/v1/sync/status')
      ).body.accounts.find((a) => a.name !== 'Current Account' && a.balance !== null)!;
      expect((await page(savings.id)).chart).not.toBeNull();

      // A sync that fails before it reaches the account (the account list answers 503) says nothing of
      // its balance: still the old one, still not charted.
      sandbox.faults.add({ kind: 'status', status: 503, times: 3, match: { endpoint: 'accounts' } });
      expect((await runtime.syncUser(t.userId)).ok).toBe(false);
      expect((await current()).balance_stale).toBe(true);
      expect((await page(stale.id)).chart).toBeNull();

      // The next sync reads the balance: current again, and charted.
      sandbox.faults.clear();
      expect((await runtime.syncUser(t.userId)).ok).toBe(true);
      const healed = await current();
      expect(healed.balance).toBe(bankBalance());
      const back = await page(healed.id);
      expect(back.account.balance_stale).toBe(false);
      expect(back.chart).not.toBeNull();
    });

    it('is no longer flagged once the provider stops listing the account (it keeps its last balance)', async () => {
      const { sandbox, runtime } = await start();
      await runtime.syncUser(t!.userId);
      failReads('balance');
      sandbox.advanceDays(1);
      await runtime.syncUser(t!.userId);
      expect((await current()).balance_stale).toBe(true);
      // The bank account is closed: the provider's list leaves it out from now on.
      const listed = (await (
        await sandbox.handle(
          new Request('http://sandbox/accounts', { headers: { 'x-api-key': 'sandbox-key' } }),
        )
      ).json()) as { accounts: Array<{ id: unknown }> };
      sandbox.faults.add({
        kind: 'status',
        status: 200,
        body: { ...listed, accounts: listed.accounts.filter((a) => String(a.id) !== '4711') },
        match: { endpoint: 'accounts' },
      });
      for (let run = 0; run < 2; run++) {
        sandbox.advanceDays(1);
        await runtime.syncUser(t!.userId);
      }
      const closed = await current();
      expect(closed.state).not.toBe('active');
      expect(closed.balance_stale).toBe(false);
    });

    it("a balance taken while the rows failed to sync is not 'adds up', and the chart waits for the rows", async () => {
      const { sandbox, runtime } = await start();
      await runtime.syncUser(t!.userId);
      for (let day = 0; day < 2; day++) {
        sandbox.advanceDays(1);
        await runtime.syncUser(t!.userId);
      }
      const checked = await current();
      expect(checked.balance_check?.status).toBe('balanced');
      const before = await pageOf(checked.id);
      expect(before.chart).not.toBeNull();

      // A day on, the transactions read fails three times (past the client's retries); the balance reads.
      failReads('transactions');
      sandbox.advanceDays(1);
      expect((await runtime.syncUser(t!.userId)).ok).toBe(false);
      const apart = await current();
      // The bank's new balance, beside rows that lack what moved it: no verdict can be given.
      expect(apart.balance).toBe(bankBalance());
      expect(apart.balance).not.toBe(checked.balance);
      expect(apart.balance_check?.status).toBe('unchecked');
      const shown = await pageOf(apart.id);
      expect(shown.accounts.find((a) => a.id === apart.id)!.balance_check?.status).toBe('unchecked');
      expect(shown.chart).toBeNull();
      expect(shown.chart_note).toMatch(/could not read all of its transactions/);

      // The next sync reads the rows: checked, and charted from the bank's balance.
      expect((await runtime.syncUser(t!.userId)).ok).toBe(true);
      expect((await current()).balance_check?.status).toBe('balanced');
      const back = await pageOf(apart.id);
      expect(back.chart_note).toBeNull();
      expect(back.chart!.last).toBe(back.accounts.find((a) => a.id === apart.id)!.balance);
    });

    it('draws no chart from a balance newer than its rows on an account never checked yet (its first sync the last clean one)', async () => {
      const { sandbox, runtime } = await start();
      await runtime.syncUser(t!.userId);
      const accountId = (await current()).id;
      const chartOf = () => pageOf(accountId);
      expect((await chartOf()).chart).not.toBeNull();
      failReads('transactions');
      sandbox.advanceDays(2);
      expect((await runtime.syncUser(t!.userId)).ok).toBe(false);
      const shown = await chartOf();
      expect(shown.accounts.find((a) => a.id === accountId)!.balance_check?.status).toBe('unchecked');
      expect(shown.chart).toBeNull();
      expect(shown.chart_note).toMatch(/could not read all of its transactions/);
      expect((await runtime.syncUser(t!.userId)).ok).toBe(true);
      expect((await chartOf()).chart).not.toBeNull();
    });

    it('draws no chart while a sync is running: its rows land before its balance', async () => {
      const { sandbox, runtime } = await start();
      await runtime.syncUser(t!.userId);
      const accountId = (await current()).id;
      const chartOf = () => pageOf(accountId);
      expect((await chartOf()).chart).not.toBeNull();
      // The account's balance answers late: its new rows are in the mirror well before its balance.
      sandbox.faults.add({
        kind: 'latency',
        ms: 1_500,
        times: 1,
        match: { accountId: '4711', endpoint: 'balance' },
      });
      sandbox.advanceDays(2);
      const run = runtime.syncUser(t!.userId);
      await vi.waitFor(() => expect(runtime.engine.isSyncing(t!.userId)).toBe(true));
      const during = await chartOf();
      expect(during.chart).toBeNull();
      expect(during.chart_note).toMatch(/A sync is running/);
      expect((await run).ok).toBe(true);
      const after = await chartOf();
      expect(after.chart_note).toBeNull();
      expect(after.chart!.last).toBe(after.accounts.find((a) => a.id === accountId)!.balance);
    });
  });
}
