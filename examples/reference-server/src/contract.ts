/**
 * The exact JSON this server renders, as strict zod schemas: the OpenAPI document is generated from
 * them and the tests hold every response to them (and to @finsync/service's lenient client schema).
 */
import { z } from '@hono/zod-openapi';

const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const PaginationSchema = z
  .object({
    page: z.number().int(),
    per_page: z.number().int(),
    total_count: z.number().int(),
    total_pages: z.number().int(),
  })
  .strict();

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
    created_at: z.string().regex(SECONDS),
    updated_at: z.string().regex(SECONDS),
  })
  .strict();

export const TransactionCollectionSchema = z
  .object({ transactions: z.array(RenderedTransactionSchema), pagination: PaginationSchema })
  .strict();

/** `GET /api/v1/accounts`' account: the service's keys in its order, then this server's `state`. */
export const RenderedAccountSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    balance: z
      .string()
      .nullable()
      .describe(
        'Formatted for display, e.g. "$1,234.56"; a liability as what is owed (positive). Null until a sync read a balance',
      ),
    balance_cents: z.number().int().nullable(),
    cash_balance: z
      .string()
      .nullable()
      .describe('The balance for accounts of cash; null for investment and crypto accounts'),
    cash_balance_cents: z.number().int().nullable(),
    currency: z.string().nullable(),
    classification: z.enum(['asset', 'liability']),
    account_type: z.string(),
    subtype: z.null(),
    status: z.enum(['active', 'disabled']),
    institution_name: z.string().nullable(),
    institution_domain: z.null(),
    created_at: z.string().regex(SECONDS),
    updated_at: z.string().regex(SECONDS),
    state: z
      .enum(['active', 'inactive', 'gone'])
      .describe('finsync: `inactive` at the bank, `gone` from the provider'),
  })
  .strict();

export const AccountCollectionSchema = z
  .object({ accounts: z.array(RenderedAccountSchema), pagination: PaginationSchema })
  .strict();

export const RenderedCategorySchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    color: z.string(),
    icon: z.string(),
    parent: z.null(),
    subcategories_count: z.literal(0),
    created_at: z.string().regex(SECONDS),
    updated_at: z.string().regex(SECONDS),
  })
  .strict();

export const CategoryCollectionSchema = z
  .object({ categories: z.array(RenderedCategorySchema), pagination: PaginationSchema })
  .strict();

export const RenderedMerchantSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    type: z.literal('ProviderMerchant'),
    created_at: z.string().regex(MILLISECONDS),
    updated_at: z.string().regex(MILLISECONDS),
  })
  .strict();

export const RenderedTagSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    color: z.string(),
    created_at: z.string().regex(MILLISECONDS),
    updated_at: z.string().regex(MILLISECONDS),
  })
  .strict();
