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

/**
 * An amount in minor units as JSON carries it: any integer. Past 2^53 − 1 (90 trillion dollars in
 * cents) `JSON.parse` has already rounded it, so such a value is read as `null` (not exact) rather
 * than refused: the service stores amounts that large, and a refused answer to a create that was
 * stored would invite a retry, and a duplicate.
 */
export const WireCents = z
  .number()
  .refine(Number.isInteger, { message: 'expected an integer' })
  .nullish()
  .transform((value) => (value != null && Number.isSafeInteger(value) ? value : null));

/**
 * Reads the `{ id, name, account_type }` account reference the service puts in a transaction (and in a
 * transfer's `other_account`). Unknown keys are kept.
 */
export const AccountRefSchema = z
  .object({
    /** The account's UUID. */
    id: z.string(),
    /** The account's display name. */
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
    /** The category's UUID. */
    id: z.string(),
    /** The category's display name. */
    name: z.string(),
    /** `#RRGGBB`. */
    color: z.string().nullish(),
    /** A lucide icon name (`shopping-cart`). */
    icon: z.string().nullish(),
    /** Only older servers send it (removed from the service in 2026). */
    classification: z.string().nullish(),
    /** The parent category of a subcategory, `null` for a root (categories index only). */
    parent: z
      .object({
        /** The parent category's UUID. */
        id: z.string(),
        /** The parent category's name. */
        name: z.string(),
      })
      .loose()
      .nullish(),
    /** How many subcategories it has (categories index only). */
    subcategories_count: z.number().int().nullish(),
    /** ISO 8601 creation time (categories index only). */
    created_at: z.string().nullish(),
    /** ISO 8601 time of the last change (categories index only). */
    updated_at: z.string().nullish(),
  })
  .loose();

/** A merchant. The merchants index adds `type` (`FamilyMerchant`/`ProviderMerchant`) and timestamps. */
export const MerchantSchema = z
  .object({
    /** The merchant's UUID. */
    id: z.string(),
    /** The merchant's display name. */
    name: z.string(),
    /** `FamilyMerchant` (made by the user) or `ProviderMerchant` (from a data provider); merchants index only. */
    type: z.string().nullish(),
    /** ISO 8601 creation time (merchants index only). */
    created_at: z.string().nullish(),
    /** ISO 8601 time of the last change (merchants index only). */
    updated_at: z.string().nullish(),
  })
  .loose();

/** A tag. The tags index and `POST /api/v1/tags` add the timestamps. */
export const TagSchema = z
  .object({
    /** The tag's UUID. */
    id: z.string(),
    /** The tag's display name. */
    name: z.string(),
    /** `#RRGGBB`. */
    color: z.string().nullish(),
    /** ISO 8601 creation time (tags index and create only). */
    created_at: z.string().nullish(),
    /** ISO 8601 time of the last change (tags index and create only). */
    updated_at: z.string().nullish(),
  })
  .loose();

/**
 * Reads a transaction's `transfer`: the transfer it is the inflow or outflow side of,
 * `{ id, amount, currency, other_account }`. Unknown keys are kept.
 */
export const TransferSchema = z
  .object({
    /** The transfer's UUID. */
    id: z.string(),
    /** The amount as a locale-formatted display string, like a transaction's `amount`; never parse it. */
    amount: z.string(),
    /** ISO code of the amount. */
    currency: z.string(),
    /** The account of the opposite side; left out when that side is missing. */
    other_account: AccountRefSchema.optional(),
  })
  .loose();

export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Reads one transaction as the service renders it (`GET /api/v1/transactions/{id}`, the index's rows,
 * create and update answers) into a `Transaction`. Unknown keys are kept; optional members missing
 * become `null` (or `[]` for `tags`), and `amount_decimal` is added.
 */
export const TransactionSchema = z
  .object({
    /** The transaction's UUID. */
    id: z.string(),
    /** `YYYY-MM-DD`. */
    date: z.string(),
    /** A display string formatted for a locale (`"$1,234.56"`, `"1.234,56 €"`); never parse it. */
    amount: z.string(),
    /** The magnitude in the currency's minor units (cents for USD, yen for JPY, fils for KWD), 0 or more. */
    amount_cents: WireCents,
    /** `amount_cents` signed the user's way: positive for income, negative for an expense. */
    signed_amount_cents: WireCents,
    /** ISO code as stored, e.g. `USD`. */
    currency: z.string(),
    /** The transaction's name. */
    name: z.string(),
    /** Free-text notes. */
    notes: z.string().nullish(),
    /** The provider's id (`lunchflow_…`) or an API create's idempotency key. */
    external_id: z.string().nullish(),
    /** Where the row came from: `lunchflow`, `plaid`, …, `api` for idempotent creates. */
    source: z.string().nullish(),
    /** `income` (stored amount below 0) or `expense` (otherwise, zero included). */
    classification: z.string(),
    /** The account the transaction is in. */
    account: AccountRefSchema,
    /** Its category, `{ id, name, color, icon }`. */
    category: CategorySchema.nullish(),
    /** Its merchant, `{ id, name }`. */
    merchant: MerchantSchema.nullish(),
    /** Its tags, `[{ id, name, color }]`. */
    tags: z.array(TagSchema).nullish(),
    /** The transfer it is a side of. */
    transfer: TransferSchema.nullish(),
    /** ISO 8601 creation time, whole seconds. */
    created_at: z.string(),
    /** ISO 8601 time of the last change, whole seconds. */
    updated_at: z.string(),
  })
  .loose()
  .transform((wire) => {
    // The exact value, in the service's own sign convention (positive = expense, negative = income),
    // from the integer cents where the server sends them.
    let amountDecimal: string | null = null;
    if (wire.amount_cents !== null) {
      const magnitude = amountCentsToDecimal(BigInt(Math.abs(wire.amount_cents)), wire.currency);
      amountDecimal =
        wire.classification === 'income' && wire.amount_cents !== 0 ? `-${magnitude}` : magnitude;
    } else if (PLAIN_DECIMAL.test(wire.amount)) {
      amountDecimal = wire.amount;
    }
    return {
      ...wire,
      /** Free-text notes, or `null`. */
      notes: wire.notes ?? null,
      /** The provider's id (`lunchflow_…`) or an API create's idempotency key, or `null`. */
      external_id: wire.external_id ?? null,
      /** Where the row came from (`lunchflow`, `plaid`, `api`, …), or `null` for a manual entry. */
      source: wire.source ?? null,
      /** Its category, `{ id, name, color, icon }`, or `null`. */
      category: wire.category ?? null,
      /** Its merchant, `{ id, name }`, or `null`. */
      merchant: wire.merchant ?? null,
      /** Its tags, `[]` when it has none. */
      tags: wire.tags ?? [],
      /** The transfer it is the inflow or outflow side of, or `null`. */
      transfer: wire.transfer ?? null,
      /**
       * The magnitude in the currency's minor units (cents for USD, yen for JPY, fils for KWD), or `null`
       * from a server that does not send it, or past 2^53 − 1, where JSON cannot carry it exactly.
       */
      amount_cents: wire.amount_cents ?? null,
      /**
       * `amount_cents` signed the user's way, positive for income and negative for an expense (the
       * opposite of the internal sign), or `null` as `amount_cents`.
       */
      signed_amount_cents: wire.signed_amount_cents ?? null,
      /**
       * Exact decimal string, positive for an expense and negative for income (the service's internal
       * convention); `null` when the response carries no exact value.
       */
      amount_decimal: amountDecimal,
    };
  });

/**
 * A transaction as the service renders it, plus `amount_decimal` (see the README). Read the amount from
 * `amount_decimal` (internal sign: positive = expense), `signed_amount_cents` (positive = income) or
 * `amount_cents` (the magnitude); `amount` is a locale-formatted display string. Optional members
 * missing from the answer are `null` (`tags`: `[]`).
 */
export type Transaction = z.output<typeof TransactionSchema>;

/** Reads an index's `pagination` object, `{ page, per_page, total_count, total_pages }`. */
export const PaginationSchema = z
  .object({
    /** The page this answer holds, from 1; a page past the end is answered with the last one. */
    page: z.number().int(),
    /** Rows per page (1 to 100; 25 by default). */
    per_page: z.number().int(),
    /** Rows across every page. */
    total_count: z.number().int(),
    /** Number of pages. */
    total_pages: z.number().int(),
  })
  .loose();

/** Where a page sits in an index: its number, its size and the totals. */
export type Pagination = z.output<typeof PaginationSchema>;

/** Reads one page of `GET /api/v1/transactions` (or `…/deleted`): `{ transactions, pagination }`. */
export const TransactionPageSchema = z.object({
  /** The page's transactions. */
  transactions: z.array(TransactionSchema),
  /** Where the page sits in the index. */
  pagination: PaginationSchema,
});

/**
 * Reads the service's error body, `{ error, message, errors, details }`, which the client turns into
 * the fields of a `ServiceAPIError`. Unknown keys are kept.
 */
export const ErrorBodySchema = z
  .object({
    /** A machine-readable code: `not_found`, `validation_failed`, `rate_limit_exceeded`, … */
    error: z.string(),
    /** A human-readable message. */
    message: z.string().optional(),
    /** The validation messages of a 422. */
    errors: z.array(z.string()).optional(),
    /** More about the error (a 429's `limit`, `current`, `reset_in_seconds`). */
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

/** The service's error body, as `ErrorBodySchema` reads it. */
export type ErrorBody = z.output<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------------
// Request bodies: PATCH /api/v1/transactions/{id} and POST /api/v1/transactions

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real calendar day written `YYYY-MM-DD` (`2026-02-30` is not). */
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

/**
 * Whether the service's `decimal(19,4)` amounts can hold `amount`: less than 10^15 in magnitude, as
 * the service reads it. It reads a string as a double too (`to_f`), so `999999999999999.9999`, which
 * that rounds up to 10^15, overflows there: a string is judged by its digits and by the double alike.
 */
function fitsServiceAmount(amount: number | string): boolean {
  if (typeof amount === 'number') return Math.abs(amount) < 1e15;
  return (
    amount
      .replace(/^-/, '')
      .split('.')[0]!
      .replace(/^0+(?=\d)/, '').length <= 15 && Math.abs(Number(amount)) < 1e15
  );
}

/**
 * Whether `amount` has at most the 4 decimal places `decimal(19,4)` keeps: the service rounds the rest
 * away without a word (`0.00012345` BTC is stored as `0.0001`, `0.00004` as 0). A string is judged by
 * its digits (trailing zeros are no places); a number by its value, so a sum such as `0.1 + 0.2`
 * (`0.30000000000000004`), which is 0.3 up to the double's own rounding, still goes.
 */
function fitsServiceScale(amount: number | string): boolean {
  if (typeof amount === 'string') return (amount.split('.')[1] ?? '').replace(/0+$/, '').length <= 4;
  // A few units of the double's own rounding, relative to the amount: a tolerance that grew faster
  // let 123456789.12345 through.
  return Math.abs(amount - Number(amount.toFixed(4))) <= Math.abs(amount) * Number.EPSILON * 4;
}

/** A finite number or a plain decimal string (`"12.34"`, `"-7"`); never `"1,234.56"` or `"abc"`. */
const AmountMember = z
  .union(
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
  )
  // The service stores amounts as decimal(19,4): 10^15 or more does not fit, and was a 500.
  .refine(fitsServiceAmount, {
    message: 'Amount must be less than 1,000,000,000,000,000 in magnitude',
  })
  .refine(fitsServiceScale, {
    message: 'Amount must have at most 4 decimal places (the service stores 4 and rounds the rest away)',
  });

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
  /** The new name; not blank. */
  name: nonBlank('Name').optional(),
  /** Used as the name when `name` is absent. */
  description: nonBlank('Description').optional(),
  /** Any string; `""` clears the notes (`null` would not). */
  notes: textMember('Notes').optional(),
  /** Accepted by the service but ignored on update. */
  currency: textMember('Currency').optional(),
  /** The new category's UUID; a category cannot be cleared. */
  category_id: nonBlank('Category').optional(),
  /** The new merchant's UUID; a merchant cannot be cleared. */
  merchant_id: nonBlank('Merchant').optional(),
  /** `income`/`inflow` store `-|amount|`, `expense`/`outflow` store `+|amount|`; case-insensitive. */
  nature: NatureMember.optional(),
  /** Replaces the tag set exactly; `[]` removes every tag. */
  tag_ids: TagIdsMember.optional(),
});

/**
 * The body of `transactions.update(id, body)`: the members to change, every one optional. See
 * `TransactionUpdateSchema` for what each does; the client refuses anything else before sending.
 */
export type TransactionUpdate = z.input<typeof TransactionUpdateSchema>;

/** The request body: `{ "transaction": { … } }`. */
export const TransactionUpdateRequestSchema = z.object({
  /** The members to change. */
  transaction: TransactionUpdateSchema,
});

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
    /** The name; required unless `description` is given, and not blank. */
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
    /** Free-text notes. Default: none. */
    notes: textMember('Notes').optional(),
    /** The category's UUID. */
    category_id: nonBlank('Category').optional(),
    /** The merchant's UUID. */
    merchant_id: nonBlank('Merchant').optional(),
    /** Tag UUIDs, at most 1 000. */
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

/**
 * The body of `transactions.create(body)`: `account_id`, `date`, `amount` and a name are required. See
 * `TransactionCreateSchema` for each member; the client refuses anything else before sending.
 */
export type TransactionCreate = z.input<typeof TransactionCreateSchema>;

/** The request body: `{ "transaction": { … } }`. */
export const TransactionCreateRequestSchema = z.object({
  /** The new transaction's members. */
  transaction: TransactionCreateSchema,
});

/** The answer to `DELETE /api/v1/transactions/{id}`: `{"message":"Transaction deleted successfully"}`. */
export const TransactionDeleteResultSchema = z
  .object({
    /** The service's confirmation text. */
    message: z.string(),
  })
  .loose();

/**
 * `list()` filters, sent the way the service's Rails params read them (arrays as `name[]=…`). Every
 * filter given must match (AND); within one array, any id matches (OR). See the README's table.
 */
export interface TransactionListParams {
  /** First page to fetch, 1 or more (default 1); the list walks on from it. */
  page?: number | undefined;
  /** 1–100 (default 25). */
  per_page?: number | undefined;
  /** One account (a UUID). */
  account_id?: string | undefined;
  /** Any of these accounts (`account_ids[]`). With `account_id` too, a row must match both. */
  account_ids?: string[] | undefined;
  /** `YYYY-MM-DD`, inclusive. */
  start_date?: string | undefined;
  /** `YYYY-MM-DD`, inclusive. */
  end_date?: string | undefined;
  /**
   * Case-insensitive substring of the name, the notes or the merchant's name (SQL `ILIKE`, not
   * escaped by the service: `%` and `_` are wildcards, `\` escapes them).
   */
  search?: string | undefined;
  /** One category (a UUID). */
  category_id?: string | undefined;
  /** Any of these categories (`category_ids[]`). */
  category_ids?: string[] | undefined;
  /** One merchant (a UUID). */
  merchant_id?: string | undefined;
  /** Any of these merchants (`merchant_ids[]`). */
  merchant_ids?: string[] | undefined;
  /** Transactions carrying any of these tags (sent as `tag_ids[]`). */
  tag_ids?: string[] | undefined;
  /**
   * Lowest stored amount, inclusive, in the **internal sign** (positive = expense, negative =
   * income) and the row's own currency: `min_amount: 100` means "expenses of 100 or more".
   */
  min_amount?: number | string | undefined;
  /** Highest stored amount, inclusive, internal sign: `max_amount: -100` means "income of 100 or more". */
  max_amount?: number | string | undefined;
  /** `income` (stored amount < 0) or `expense` (stored amount > 0; zero amounts match neither). */
  type?: 'income' | 'expense' | undefined;
}

/** `listDeleted()` parameters: the deleted rows are paged like the index, without filters. */
export interface TransactionDeletedListParams {
  /** First page to fetch, 1 or more (default 1). */
  page?: number | undefined;
  /** Rows per page, 1 to 100 (default 25). */
  per_page?: number | undefined;
}

/** What `create()` returns: `created` is true on 201 (a new row), false on 200 (an idempotent repeat). */
export interface TransactionCreateResult {
  /** True when the service made a new row (201); false when it answered an idempotent repeat (200). */
  created: boolean;
  /** The new row, or for a repeat the original row as it is, whatever the repeat carried. */
  transaction: Transaction;
}

/** What `delete()` returns: the service's `{"message":"Transaction deleted successfully"}`. */
export interface TransactionDeleteResult {
  /** The service's confirmation, `"Transaction deleted successfully"`. */
  message: string;
}
