/**
 * The exact JSON this server renders, as strict zod schemas: the OpenAPI document is generated from
 * them and the tests hold every response to them (and to @finsync/service's lenient client schema).
 */
import { z } from '@hono/zod-openapi';

const AccountRef = z.object({ id: z.string(), name: z.string(), account_type: z.string() }).strict();

export const RenderedTransactionSchema = z
  .object({
    id: z.string().uuid(),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    amount: z
      .string()
      .describe('Formatted for display, e.g. "$42.10"; the sign is the internal one (negative = income)'),
    amount_cents: z.number().int().min(0),
    signed_amount_cents: z.number().int().describe('+amount_cents for income, -amount_cents for expenses'),
    currency: z.string(),
    name: z.string(),
    notes: z.string().nullable(),
    external_id: z.string().nullable(),
    source: z.string().nullable(),
    classification: z.enum(['income', 'expense']),
    account: AccountRef,
    category: z
      .object({ id: z.string(), name: z.string(), color: z.string(), icon: z.string() })
      .strict()
      .nullable(),
    merchant: z.object({ id: z.string(), name: z.string() }).strict().nullable(),
    tags: z.array(z.object({ id: z.string(), name: z.string(), color: z.string() }).strict()),
    transfer: z.null(),
    created_at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    updated_at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
  })
  .strict();

export const TransactionCollectionSchema = z
  .object({
    transactions: z.array(RenderedTransactionSchema),
    pagination: z
      .object({
        page: z.number().int(),
        per_page: z.number().int(),
        total_count: z.number().int(),
        total_pages: z.number().int(),
      })
      .strict(),
  })
  .strict();
