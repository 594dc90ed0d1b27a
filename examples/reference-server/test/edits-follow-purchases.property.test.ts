/**
 * A user's edits and deletions follow the purchase they were made on, through everything the bank does
 * to its rows: a hold that posts (at its amount or after a tip), a hold listed again at its full amount,
 * a hold lingering beside its posting, ids re-issued (8001), server restarts. The truth property
 * compares rows by content and cannot see an edit moved to another purchase; this one follows each
 * purchase by the sandbox's `purchaseId`.
 *
 * Only purchases that nothing else could be mistaken for are edited: no other purchase of the account
 * at the same payee within 10 days over the whole sequence. Where such a rival exists the engine's rules
 * may not link a row on purpose (packages/sync/SPEC.md, "Replacement rules"), which is another property.
 */
import fc from 'fast-check';
import { SandboxProvider, type SandboxTransaction } from '@finsync/provider/sandbox';
import { describe, expect, it } from 'vitest';
import { BACKENDS, startSandboxUser } from './helpers.js';

type Step =
  | { kind: 'advance'; days: number }
  | { kind: 'sync' }
  | { kind: 'edit'; pick: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 3 }) }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('sync' as const) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('restart' as const) }), weight: 1 },
);

interface Row {
  id: string;
  date: string;
  name: string;
  signed_amount_cents: number;
  external_id: string | null;
  notes: string | null;
  account: { id: string };
}

const TODAY = '2026-12-01';
const MAX_STEPS = 10;
const DAY = 86_400_000;
const RUNS: Record<string, number> = { sqlite: 25, postgres: 5 };
const text = (value: string | null) => value?.trim() || null;
/** As the app names a row: the merchant, else the description. */
const payeeOf = (x: SandboxTransaction) => text(x.merchant) ?? text(x.description) ?? 'Unknown transaction';
const cents = (amount: string) => Number(amount.replace('.', ''));
const days = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) / DAY;

/** The purchases of the whole sequence that no other purchase of their account and payee is near. */
function lonelyPurchases(options: ConstructorParameters<typeof SandboxProvider>[0]): Set<string> {
  // The same bank seen at the sequence's last possible day, with the same first day of history.
  const span = MAX_STEPS * 3;
  const ahead = new SandboxProvider({
    ...options,
    today: new Date(Date.parse(TODAY) + span * DAY).toISOString().slice(0, 10),
    historyDays: options!.historyDays! + span,
  });
  const lonely = new Set<string>();
  for (const account of ahead.listAccounts()) {
    const rows = [...ahead.transactionsOf(account.id, { includePending: true })];
    for (const row of rows) {
      const rival = rows.some(
        (o) => o.purchaseId !== row.purchaseId && payeeOf(o) === payeeOf(row) && days(o.date, row.date) <= 10,
      );
      if (!rival) lonely.add(row.purchaseId);
    }
  }
  return lonely;
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`edits follow purchases ${backend.title}`, () => {
    it('a note stays on its purchase and a deletion keeps it hidden, whatever its rows become', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 3, maxLength: MAX_STEPS }),
          fc.integer({ min: 1, max: 500 }),
          async (steps, seed) => {
            const sandboxOptions = {
              seed,
              historyDays: 20,
              transactionsPerDay: 3,
              holdsSettleElsewise: true,
              holdsRelisted: true,
              today: TODAY,
            };
            const lonely = lonelyPurchases(sandboxOptions);
            const t = await startSandboxUser(backend, sandboxOptions);
            try {
              const api = async (method: string, path: string, body?: unknown) => {
                const { status } = await t.api(method, path, body);
                expect(status, `${method} ${path}`).toBeLessThan(300);
              };
              const shown = () => t.listAll<Row>('/api/v1/transactions');
              /** The app's account ids → the provider's, known once a sync has made the accounts. */
              const providerAccount = new Map<string, string>();
              /** The provider's rows now: each listed purchase once, as posted if it has posted. */
              const truthNow = async () => {
                for (const a of await t.server.runtime.store.listAccounts(t.userId))
                  providerAccount.set(a.id, a.provider_account_id);
                const sandbox = t.server.runtime.sandbox!;
                const byPurchase = new Map<string, SandboxTransaction>();
                for (const account of sandbox.listAccounts().filter((a) => a.status === 'ACTIVE'))
                  for (const x of sandbox.transactionsOf(account.id, { includePending: true }))
                    if (!x.lingering) byPurchase.set(x.purchaseId, x);
                return byPurchase;
              };
              /** The lonely purchase a shown row stands for, if the rows say so unambiguously. */
              const purchaseOf = (row: Row, truth: Map<string, SandboxTransaction>) => {
                const matches = [...truth.values()].filter((x) =>
                  row.external_id?.startsWith('lunchflow_pending_')
                    ? x.isPending &&
                      providerAccount.get(row.account.id) === x.accountId &&
                      x.date === row.date &&
                      cents(x.amount) === row.signed_amount_cents &&
                      payeeOf(x) === row.name
                    : row.external_id === `lunchflow_${x.id}`,
                );
                return matches.length === 1 && lonely.has(matches[0]!.purchaseId)
                  ? matches[0]!.purchaseId
                  : undefined;
              };
              const notes = new Map<string, string>();
              const deleted = new Set<string>();
              let written = 0;
              const check = async () => {
                const truth = await truthNow();
                const rows = await shown();
                const rowsOf = new Map<string, Row[]>();
                for (const row of rows) {
                  const purchase = purchaseOf(row, truth);
                  if (purchase !== undefined) rowsOf.set(purchase, [...(rowsOf.get(purchase) ?? []), row]);
                  // A note never lands on another purchase.
                  for (const [owner, note] of notes)
                    if (row.notes === note)
                      expect(purchase ?? owner, `note of ${owner} on ${row.id}`).toBe(owner);
                }
                for (const purchase of deleted)
                  if (truth.has(purchase))
                    expect(rowsOf.get(purchase) ?? [], `deleted ${purchase} shown`).toEqual([]);
                for (const [purchase, note] of notes) {
                  if (!truth.has(purchase) || deleted.has(purchase)) continue;
                  const [row, ...more] = rowsOf.get(purchase) ?? [];
                  expect(more, `${purchase} shown twice`).toEqual([]);
                  expect(row?.notes, `the note on ${purchase}`).toBe(note);
                }
              };
              /**
               * A shown row of a lonely purchase, picked by `pick`, with that purchase: a pending one
               * for an even `pick` where there is one (the rows whose keys change), else any.
               */
              const pickPurchase = async (pick: number) => {
                const truth = await truthNow();
                const candidates = (await shown())
                  .map((row) => ({ row, purchase: purchaseOf(row, truth) }))
                  .filter((c): c is { row: Row; purchase: string } => c.purchase !== undefined)
                  .sort((a, b) => (a.purchase < b.purchase ? -1 : 1));
                const pending = candidates.filter((c) => c.row.external_id?.startsWith('lunchflow_pending_'));
                const from = pick % 2 === 0 && pending.length > 0 ? pending : candidates;
                return from.length === 0 ? undefined : from[Math.floor(pick / 2) % from.length]!;
              };
              const sync = async () => {
                const summary = await t.server.runtime.syncUser(t.userId);
                if (summary.ok) await check();
              };
              await sync();
              for (const s of steps) {
                if (s.kind === 'advance') t.server.runtime.sandbox!.advanceDays(s.days);
                else if (s.kind === 'sync') await sync();
                else if (s.kind === 'edit') {
                  const picked = await pickPurchase(s.pick);
                  if (!picked || deleted.has(picked.purchase)) continue;
                  const note = `note ${(written += 1)}`;
                  await api('PATCH', `/api/v1/transactions/${picked.row.id}`, {
                    transaction: { notes: note },
                  });
                  notes.set(picked.purchase, note);
                } else if (s.kind === 'delete') {
                  const picked = await pickPurchase(s.pick);
                  if (!picked) continue;
                  await api('DELETE', `/api/v1/transactions/${picked.row.id}`);
                  deleted.add(picked.purchase);
                } else await t.restart();
              }
              await sync();
              await check();
            } finally {
              await t.close();
            }
          },
        ),
        { numRuns: RUNS[backend.kind]! },
      );
    }, 300_000);
  });
}
