/**
 * A card hold the bank lists again with other content while it is pending (an estimate on its first
 * day, the full amount from the next, as an incremental authorisation): a pending row has no id, so
 * the engine sees a new row. The user's transaction stays one transaction, with its edits, and a hold
 * the user deleted stays deleted, through the re-listing and the posting.
 */
import { SandboxProvider, type SandboxTransaction } from '@finsync/provider/sandbox';
import { ServiceClient } from '@finsync/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

const SANDBOX = { seed: 7, historyDays: 30, transactionsPerDay: 3 };
const DAY = 86_400_000;
const ACCOUNTS = ['4711', '4713', '7001', '8001'];

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(backend.title, () => {
    let t: TestServer;
    let client: ServiceClient;

    beforeAll(async () => {
      t = await startTestServer(backend, { ...SANDBOX, holdsRelisted: true });
      client = new ServiceClient({ baseUrl: t.server.url, apiKey: t.keys.alice, maxRetries: 0 });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('keeps an edited hold’s transaction, and a deleted one deleted, when the bank lists them again and they post', async () => {
      const sandbox = t.server.runtime.sandbox!;
      const listed = (p: SandboxProvider, id: string) => [...p.transactionsOf(id, { includePending: true })];
      const near = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= 9 * DAY;
      const cents = (amount: string) => Number(amount.replace('.', ''));
      /** Holds listed today at a first-day estimate, with no other row of their merchant near. */
      const estimatesToday = () => {
        // The same bank without the estimates tells which holds are listed at one today.
        const plain = new SandboxProvider({ ...SANDBOX, today: sandbox.today });
        return ACCOUNTS.flatMap((id) => {
          const plainAmounts = new Map(listed(plain, id).map((x) => [x.purchaseId, x.amount]));
          const rows = listed(sandbox, id);
          return rows.filter(
            (x) =>
              x.isPending &&
              x.amount !== plainAmounts.get(x.purchaseId) &&
              rows.every(
                (o) => o.purchaseId === x.purchaseId || o.merchant !== x.merchant || !near(o.date, x.date),
              ),
          );
        });
      };
      let holds: SandboxTransaction[] = [];
      for (let day = 0; day < 200 && holds.length < 2; day += 1) {
        sandbox.advanceDays(1);
        holds = estimatesToday();
      }
      expect(holds.length, 'two holds listed at a first-day estimate').toBeGreaterThanOrEqual(2);
      await t.server.runtime.syncUser(t.users.alice);
      const all = () => client.transactions.list({ per_page: 100 }).toArray({ limit: 10_000 });
      const accounts = await t.server.runtime.store.listAccounts(t.users.alice);
      const shownFor = async (hold: SandboxTransaction) => {
        const account = accounts.find((a) => a.provider_account_id === hold.accountId)!;
        return (await all()).find(
          (r) =>
            r.account.id === account.id &&
            r.date === hold.date &&
            r.signed_amount_cents === cents(hold.amount) &&
            r.external_id?.startsWith('lunchflow_pending_'),
        );
      };
      const [edited, deleted] = holds as [SandboxTransaction, SandboxTransaction];
      const editedRow = (await shownFor(edited))!;
      const deletedRow = (await shownFor(deleted))!;
      expect(editedRow).toBeDefined();
      expect(deletedRow).toBeDefined();
      await client.transactions.update(editedRow.id, { notes: 'hotel, two nights' });
      await client.transactions.delete(deletedRow.id);

      // The next day the bank lists both at their full amount.
      sandbox.advanceDays(1);
      await t.server.runtime.syncUser(t.users.alice);
      const ofPurchase = (hold: SandboxTransaction) =>
        listed(sandbox, hold.accountId).filter((x) => x.purchaseId === hold.purchaseId);
      const [relisted] = ofPurchase(edited);
      expect(relisted).toMatchObject({ isPending: true });
      expect(cents(relisted!.amount)).not.toBe(cents(edited.amount));
      expect(await client.transactions.get(editedRow.id)).toMatchObject({
        id: editedRow.id,
        notes: 'hotel, two nights',
        signed_amount_cents: cents(relisted!.amount),
      });
      const shownIds = async () => new Set((await all()).map((r) => r.id));
      expect((await shownIds()).has(deletedRow.id), 'the deleted hold stays deleted').toBe(false);
      const stillPending = (await all()).filter((r) => r.external_id?.startsWith('lunchflow_pending_'));
      const [deletedNow] = ofPurchase(deleted);
      expect(
        stillPending.filter(
          (r) => r.date === deletedNow!.date && r.signed_amount_cents === cents(deletedNow!.amount),
        ),
        'the deleted hold is not shown again under its new amount',
      ).toEqual([]);

      // Then they post: one transaction each, the edited one with its notes, the deleted one deleted.
      for (
        let day = 0;
        day < 5 && [edited, deleted].some((h) => ofPurchase(h).some((x) => x.isPending));
        day++
      ) {
        sandbox.advanceDays(1);
        await t.server.runtime.syncUser(t.users.alice);
      }
      const [posting] = ofPurchase(edited);
      const [deletedPosting] = ofPurchase(deleted);
      expect(posting).toMatchObject({ isPending: false });
      expect(deletedPosting).toMatchObject({ isPending: false });
      expect(await client.transactions.get(editedRow.id)).toMatchObject({
        notes: 'hotel, two nights',
        external_id: `lunchflow_${posting!.id}`,
        signed_amount_cents: cents(posting!.amount),
      });
      const rows = await all();
      expect(rows.filter((r) => r.external_id === `lunchflow_${posting!.id}`)).toHaveLength(1);
      expect(rows.filter((r) => r.external_id === `lunchflow_${deletedPosting!.id}`)).toEqual([]);
    });
  });
}
