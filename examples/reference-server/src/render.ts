/** The service's Transaction JSON (its exact shape: contract.ts), rendered from the app tables. */
import type { z } from '@hono/zod-openapi';
import type { RenderedTransactionSchema } from './contract.js';
import { formatMoney } from './money-format.js';
import { direction } from './sign-convention.js';
import { readRelated } from './store/related.js';
import { runSteps, type Awaitable, type Steps } from './store/steps.js';
import type { RelatedReads, RelatedRows, TransactionRow } from './store/types.js';

export type { RelatedRows, TransactionRow } from './store/types.js';

/** The service's Transaction JSON, as this server renders it (contract.ts holds its exact shape). */
export type RenderedTransaction = z.infer<typeof RenderedTransactionSchema>;

/** A stored timestamp as the service's jbuilder views write it: whole seconds, UTC. */
export function isoSeconds(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}

/** Renders rows; related accounts, categories, merchants and tags are read in one query each. */
export function renderTransactions(
  reads: RelatedReads,
  rows: TransactionRow[],
): Awaitable<RenderedTransaction[]> {
  return runSteps(renderSteps(reads, rows));
}

/** `renderTransactions` as steps, for a caller that is itself written as steps (a PATCH). */
export function* renderSteps(reads: RelatedReads, rows: TransactionRow[]): Steps<RenderedTransaction[]> {
  if (rows.length === 0) return [];
  return renderRows(rows, yield* readRelated(reads, rows));
}

/** The rows as the service's Transaction JSON, given what they refer to. */
export function renderRows(rows: TransactionRow[], related: RelatedRows): RenderedTransaction[] {
  const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((r) => [r.id, r]));
  const accounts = byId(related.accounts);
  const categories = byId(related.categories);
  const merchants = byId(related.merchants);
  const tags = new Map<string, Array<{ id: string; name: string; color: string }>>();
  for (const t of related.tags) {
    const list = tags.get(t.transaction_id) ?? [];
    list.push({ id: t.id, name: t.name, color: t.color });
    tags.set(t.transaction_id, list);
  }

  return rows.map((row): RenderedTransaction => {
    const { classification, amount_cents, signed_amount_cents } = direction(row.amount, row.currency);
    const account = accounts.get(row.account_id)!;
    const category = row.category_id ? categories.get(row.category_id) : undefined;
    const merchant = row.merchant_id ? merchants.get(row.merchant_id) : undefined;
    return {
      id: row.id,
      date: row.date,
      amount: formatMoney(row.amount, row.currency),
      amount_cents,
      signed_amount_cents,
      currency: row.currency,
      name: row.name,
      notes: row.notes,
      // A transaction created without an idempotency key has neither: stored as '', shown as null.
      external_id: row.external_id || null,
      source: row.source || null,
      classification,
      account: { id: account.id, name: account.name, account_type: account.account_type },
      category: category
        ? { id: category.id, name: category.name, color: category.color, icon: category.icon }
        : null,
      merchant: merchant ? { id: merchant.id, name: merchant.name } : null,
      tags: tags.get(row.id) ?? [],
      transfer: null,
      created_at: isoSeconds(row.created_at),
      updated_at: isoSeconds(row.updated_at),
    };
  });
}
