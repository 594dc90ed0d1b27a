/**
 * `npm run demo`: a scripted walk through the whole flow, on a fresh data directory, exiting 0 when
 * every step did what it should.
 *
 * start the server (sandbox provider, SQLite) → create a user and key → sync → list transactions
 * through @finsync/service → PATCH one → advance the sandbox a day → re-sync → the edit survived,
 * and a pending row posted under the same transaction id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient, type Transaction } from '@finsync/service';
import { SANDBOX, SANDBOX_KEY, startReferenceServer } from './server.js';
import { createApiKey, createUser } from './users.js';

const dataDir = mkdtempSync(join(tmpdir(), 'finsync-demo-'));
const step = (n: number, text: string) => console.log(`\n${n}. ${text}`);
function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`demo check failed: ${message}`);
  console.log(`   ✓ ${message}`);
}

let server: Awaited<ReturnType<typeof startReferenceServer>> | undefined;
// Stopped half-way (Ctrl-C), even while it starts, the throwaway data goes too: a database and the
// master key sealing its keys.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void Promise.resolve(server?.close({ graceMs: 0 }))
      .catch(() => undefined)
      .finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(130);
      });
  });
server = await startReferenceServer({ dataDir, port: 0, sandbox: { seed: 7, historyDays: 60 } });
try {
  step(1, `server listening on ${server.url} (data in ${dataDir})`);
  const user = await createUser(server.runtime.store, 'demo');
  const { key } = await createApiKey(server.runtime.store, user.id, { name: 'demo' });
  await server.runtime.setProviderKey(user.id, SANDBOX_KEY, SANDBOX);
  console.log(`   user ${user.name}, API key ${key.slice(0, 6)}… (stored hashed), provider: sandbox`);

  step(2, 'first sync');
  const first = await server.runtime.syncUser(user.id);
  const fetched = first.accounts.reduce((n, a) => n + a.fetched, 0);
  check(first.ok, `synced ${first.accounts.length} accounts, ${fetched} transactions, nothing failed`);

  step(3, 'list transactions with @finsync/service');
  const client = new ServiceClient({ baseUrl: server.url, apiKey: key });
  const recent: Transaction[] = [];
  for await (const tx of client.transactions.list({ per_page: 50 })) {
    recent.push(tx);
    if (recent.length === 200) break;
  }
  check(recent.length > 0, `read ${recent.length} transactions across pages`);
  for (const tx of recent.slice(0, 5))
    console.log(`   ${tx.date}  ${tx.amount.padStart(12)}  ${tx.classification.padEnd(7)}  ${tx.name}`);

  step(4, 'PATCH a posted transaction and a pending one');
  const posted = recent.find(
    (tx) => tx.classification === 'expense' && !tx.external_id?.startsWith('lunchflow_pending_'),
  )!;
  const pending = recent.find((tx) => tx.external_id?.startsWith('lunchflow_pending_'));
  check(
    pending !== undefined,
    `found a pending row: ${pending?.name} ${pending?.amount} on ${pending?.date}`,
  );
  const categories = (await (
    await fetch(`${server.url}/api/v1/categories`, { headers: { 'X-Api-Key': key } })
  ).json()) as {
    categories: Array<{ id: string; name: string }>;
  };
  const groceries = categories.categories.find((c) => c.name === 'Groceries')!;
  const edited = await client.transactions.update(posted.id, {
    name: 'Weekly groceries',
    notes: 'split with flatmate',
    category_id: groceries.id,
  });
  check(
    edited.name === 'Weekly groceries' && edited.category?.id === groceries.id,
    `renamed and categorised ${posted.id}`,
  );
  await client.transactions.update(pending.id, { notes: 'waiting to post' });

  step(5, 'advance the sandbox until the pending row posts, re-syncing each day');
  let postedPending: Transaction | undefined;
  for (let day = 1; day <= 5 && !postedPending; day += 1) {
    server.runtime.sandbox!.advanceDays(1);
    const report = await server.runtime.syncUser(user.id);
    check(report.ok, `day +${day}: re-sync ok (${report.feed_entries_applied} feed entries applied)`);
    const now = await client.transactions.get(pending.id).catch(() => undefined);
    if (now && !now.external_id?.startsWith('lunchflow_pending_')) postedPending = now;
  }

  step(6, 'the edits survived, and the pending row posted under the same id');
  const after = await client.transactions.get(posted.id);
  check(
    after.name === 'Weekly groceries' && after.notes === 'split with flatmate',
    'name and notes kept across syncs',
  );
  check(after.category?.name === 'Groceries', 'category kept across syncs');
  check(
    postedPending !== undefined,
    `pending row ${pending.id} is now posted as ${postedPending?.external_id}`,
  );
  check(postedPending.notes === 'waiting to post', 'its notes came along');
  console.log('\nDemo finished: every step checked.');
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
