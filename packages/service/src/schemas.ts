/**
 * The service's wire format (Sure's `/api/v1`), as zod schemas shared by the client, its MSW
 * handlers and the reference server. Responses are read leniently (real servers differ from the
 * published schema); request bodies are built strictly.
 */
import { amountCentsToDecimal, isServiceCurrency } from '@finsync/internals/currencies';
import { z } from 'zod';
import { LIMITS, count } from './limits.js';
import { textMember } from './text.js';

// ---------------------------------------------------------------------------------------------------
// Responses

export const AccountRefSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** `depository`, `investment`, `crypto`, `property`, `vehicle`, `other_asset`, `credit_card`, `loan`, `other_liability`. */
    account_type: z.string(),
  })
  .loose();

/**
 * A category. Inside a transaction the service renders `{id, name, color, icon}`; its own index
 * (`GET /api/v1/categories`) adds `parent`, `subcategories_count` and the timestamps.
 */
export const CategorySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** `#RRGGBB`. */
    color: z.string().nullish(),
    /** A lucide icon name (`shopping-cart`). */
    icon: z.string().nullish(),
    /** Only older servers send it (removed from the service in 2026). */
    classification: z.string().nullish(),
    /** The parent category of a subcategory, `null` for a root (categories index only). */
    parent: z.object({ id: z.string(), name: z.string() }).loose().nullish(),
    subcategories_count: z.number().int().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
  })
  .loose();

/** A merchant. The merchants index adds `type` (`FamilyMerchant`/`ProviderMerchant`) and timestamps. */
export const MerchantSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
  })
  .loose();

/** A tag. The tags index and `POST /api/v1/tags` add the timestamps. */
export const TagSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** `#RRGGBB`. */
    color: z.string().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
  })
  .loose();

export const TransferSchema = z
  .object({
    id: z.string(),
    amount: z.string(),
    currency: z.string(),
    other_account: AccountRefSchema.optional(),
  })
  .loose();

export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

export const TransactionSchema = z
  .object({
    id: z.string(),
    date: z.string(),
    /** A display string formatted for a locale (`"$1,234.56"`, `"1.234,56 €"`); never parse it. */
    amount: z.string(),
    amount_cents: z.number().int().nullish(),
    signed_amount_cents: z.number().int().nullish(),
    currency: z.string(),
    name: z.string(),
    notes: z.string().nullish(),
    external_id: z.string().nullish(),
    source: z.string().nullish(),
    classification: z.string(),
    account: AccountRefSchema,
    category: CategorySchema.nullish(),
    merchant: MerchantSchema.nullish(),
    tags: z.array(TagSchema).nullish(),
    transfer: TransferSchema.nullish(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .loose()
  .transform((wire) => {
    // The exact value, in the service's own sign convention (positive = expense, negative = income),
    // from the integer cents where the server sends them.
    let amountDecimal: string | null = null;
    if (typeof wire.amount_cents === 'number') {
      const magnitude = amountCentsToDecimal(BigInt(Math.abs(wire.amount_cents)), wire.currency);
      amountDecimal =
        wire.classification === 'income' && wire.amount_cents !== 0 ? `-${magnitude}` : magnitude;
    } else if (PLAIN_DECIMAL.test(wire.amount)) {
      amountDecimal = wire.amount;
    }
    return {
      ...wire,
      notes: wire.notes ?? null,
      external_id: wire.external_id ?? null,
      source: wire.source ?? null,
      category: wire.category ?? null,
      merchant: wire.merchant ?? null,
      tags: wire.tags ?? [],
      transfer: wire.transfer ?? null,
      amount_cents: wire.amount_cents ?? null,
      signed_amount_cents: wire.signed_amount_cents ?? null,
      /**
       * Exact decimal string, positive for an expense and negative for income (the service's internal
       * convention); `null` when the response carries no exact value.
       */
      amount_decimal: amountDecimal,
    };
  });

/** A transaction as the service renders it, plus `amount_decimal` (see the README). */
export type Transaction = z.output<typeof TransactionSchema>;

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    per_page: z.number().int(),
    total_count: z.number().int(),
    total_pages: z.number().int(),
  })
  .loose();

export type Pagination = z.output<typeof PaginationSchema>;

export const TransactionPageSchema = z.object({
  transactions: z.array(TransactionSchema),
  pagination: PaginationSchema,
});

export const ErrorBodySchema = z
  .object({
    error: z.string(),
    message: z.string().optional(),
    errors: z.array(z.string()).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export type ErrorBody = z.output<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------------
// Request bodies: PATCH /api/v1/transactions/{id} and POST /api/v1/transactions

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isCalendarDate(text: string): boolean {
  if (!CALENDAR_DATE.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

/** A text member that must not be blank; `what` names it in messages (`Name can't be blank`). */
export const nonBlank = (what: string) =>
  textMember(what).refine((s) => s.trim() !== '', { message: `${what} can't be blank` });

/** A body's `tag_ids`: at most `LIMITS.tagIds` of them. */
const TagIdsMember = z.array(nonBlank('Tag id')).max(LIMITS.tagIds, {
  error: (issue) =>
    `Tag ids must be at most ${count(LIMITS.tagIds)} (there are ${count((issue.input as unknown[]).length)})`,
});

/** `YYYY-MM-DD`. */
const CalendarDateMember = textMember('Date').refine(isCalendarDate, {
  message: 'Date must be a calendar date (YYYY-MM-DD)',
});

/** A finite number or a plain decimal string (`"12.34"`, `"-7"`); never `"1,234.56"` or `"abc"`. */
const AmountMember = z.union(
  [
    z.number().finite(),
    textMember('Amount').regex(PLAIN_DECIMAL, { message: 'Amount must be a decimal number like 12.34' }),
  ],
  {
    error: (issue) =>
      issue.input === undefined
        ? 'Amount is required'
        : 'Amount must be a finite number or a decimal string like 12.34',
  },
);

const NATURES = ['income', 'inflow', 'expense', 'outflow'];

/** `income`/`inflow` store `-|amount|`, `expense`/`outflow` store `+|amount|`; case-insensitive. */
const NatureMember = textMember('Nature').refine((s) => NATURES.includes(s.toLowerCase()), {
  message: 'Nature must be income, expense, inflow or outflow',
});

/**
 * The members of an update. Every member is optional; only the members present are sent, and an
 * omitted member leaves the field unchanged. Field names are the API's own. Every text member must
 * be valid Unicode (no unpaired UTF-16 surrogate).
 */
export const TransactionUpdateSchema = z.object({
  /** `YYYY-MM-DD`. */
  date: CalendarDateMember.optional(),
  /**
   * A decimal number or string. Without `nature`, positive is an expense and negative income; with
   * `nature`, its sign is ignored.
   */
  amount: AmountMember.optional(),
  name: nonBlank('Name').optional(),
  /** Used as the name when `name` is absent. */
  description: nonBlank('Description').optional(),
  /** Any string; `""` clears the notes (`null` would not). */
  notes: textMember('Notes').optional(),
  /** Accepted by the service but ignored on update. */
  currency: textMember('Currency').optional(),
  category_id: nonBlank('Category').optional(),
  merchant_id: nonBlank('Merchant').optional(),
  /** `income`/`inflow` store `-|amount|`, `expense`/`outflow` store `+|amount|`; case-insensitive. */
  nature: NatureMember.optional(),
  /** Replaces the tag set exactly; `[]` removes every tag. */
  tag_ids: TagIdsMember.optional(),
});

export type TransactionUpdate = z.input<typeof TransactionUpdateSchema>;

/** The request body: `{ "transaction": { … } }`. */
export const TransactionUpdateRequestSchema = z.object({ transaction: TransactionUpdateSchema });

/**
 * The members of a create (`POST /api/v1/transactions`). `account_id`, `date`, `amount` and a name
 * (`name`, or `description` as its alias) are required. `external_id` makes the create idempotent:
 * a repeat for the same account, `external_id` and `source` (default `"api"`) answers 200 with the
 * original row. Every text member must be valid Unicode (no unpaired UTF-16 surrogate).
 */
export const TransactionCreateSchema = z
  .object({
    /** The account the transaction goes in (a UUID; it must be writable by the key's user). */
    account_id: nonBlank('Account ID'),
    /** `YYYY-MM-DD`; future dates are allowed, 30+ years back is a 422. */
    date: CalendarDateMember,
    /** A decimal number or string. Without `nature`, positive is an expense and negative income. */
    amount: AmountMember,
    /** `income`/`inflow` store `-|amount|`, `expense`/`outflow` store `+|amount|`; case-insensitive. */
    nature: NatureMember.optional(),
    name: nonBlank('Name').optional(),
    /** Used as the name when `name` is absent; `name` wins if both are sent. */
    description: nonBlank('Description').optional(),
    /**
     * An upper-case ISO code, or another code of the service's table (`USDC`, `DOGE`), stored as
     * sent. Default: the family's currency (not the account's).
     */
    currency: textMember('Currency')
      .refine((code) => /^[A-Z]{3}$/.test(code) || isServiceCurrency(code), {
        message:
          "Currency must be an upper-case ISO 4217 code such as USD, or another code of the service's table",
      })
      .optional(),
    notes: textMember('Notes').optional(),
    category_id: nonBlank('Category').optional(),
    merchant_id: nonBlank('Merchant').optional(),
    tag_ids: TagIdsMember.optional(),
    /** An idempotency key, unique per account and `source`; stored on the row. */
    external_id: nonBlank('External ID').optional(),
    /** Where the row comes from (`"api"` when `external_id` is sent without it); needs `external_id`. */
    source: nonBlank('Source').optional(),
  })
  .superRefine((body, context) => {
    if (body.name === undefined && body.description === undefined) {
      context.addIssue({ code: 'custom', path: ['name'], message: "Name can't be blank" });
    }
    if (body.source !== undefined && body.external_id === undefined) {
      context.addIssue({ code: 'custom', path: ['source'], message: 'Source requires external_id' });
    }
  });

export type TransactionCreate = z.input<typeof TransactionCreateSchema>;

/** The request body: `{ "transaction": { … } }`. */
export const TransactionCreateRequestSchema = z.object({ transaction: TransactionCreateSchema });

/** The answer to `DELETE /api/v1/transactions/{id}`: `{"message":"Transaction deleted successfully"}`. */
export const TransactionDeleteResultSchema = z.object({ message: z.string() }).loose();

/**
 * `list()` filters, sent the way the service's Rails params read them (arrays as `name[]=…`). Every
 * filter given must match (AND); within one array, any id matches (OR). See the README's table.
 */
export interface TransactionListParams {
  page?: number;
  /** 1–100 (default 25). */
  per_page?: number;
  /** One account (a UUID). */
  account_id?: string;
  /** Any of these accounts (`account_ids[]`). With `account_id` too, a row must match both. */
  account_ids?: string[];
  /** `YYYY-MM-DD`, inclusive. */
  start_date?: string;
  /** `YYYY-MM-DD`, inclusive. */
  end_date?: string;
  /**
   * Case-insensitive substring of the name, the notes or the merchant's name (SQL `ILIKE`, not
   * escaped by the service: `%` and `_` are wildcards, `\` escapes them).
   */
  search?: string;
  category_id?: string;
  /** Any of these categories (`category_ids[]`). */
  category_ids?: string[];
  merchant_id?: string;
  /** Any of these merchants (`merchant_ids[]`). */
  merchant_ids?: string[];
  /** Transactions carrying any of these tags (sent as `tag_ids[]`). */
  tag_ids?: string[];
  /**
   * Lowest stored amount, inclusive, in the **internal sign** (positive = expense, negative =
   * income) and the row's own currency: `min_amount: 100` means "expenses of 100 or more".
   */
  min_amount?: number | string;
  /** Highest stored amount, inclusive, internal sign: `max_amount: -100` means "income of 100 or more". */
  max_amount?: number | string;
  /** `income` (stored amount < 0) or `expense` (stored amount > 0; zero amounts match neither). */
  type?: 'income' | 'expense';
}

/** `listDeleted()` parameters: the deleted rows are paged like the index, without filters. */
export interface TransactionDeletedListParams {
  page?: number;
  per_page?: number;
}

/** What `create()` returns: `created` is true on 201 (a new row), false on 200 (an idempotent repeat). */
export interface TransactionCreateResult {
  created: boolean;
  transaction: Transaction;
}

/** What `delete()` returns: the service's `{"message":"Transaction deleted successfully"}`. */
export interface TransactionDeleteResult {
  message: string;
}
