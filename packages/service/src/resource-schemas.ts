/**
 * The wire format of the lookup resources — accounts, categories, merchants, tags — read leniently:
 * Sure's `/api/v1` renders more than an older or smaller server (finsync's reference server) does,
 * and paginates some lists where others send one plain list.
 */
import { z } from 'zod';
import {
  CategorySchema,
  MerchantSchema,
  PaginationSchema,
  TagSchema,
  WireCents,
  nonBlank,
} from './schemas.js';
import { textMember } from './text.js';

/** `"$1,234.56"` on Sure (localized, like a transaction's `amount`); a plain decimal elsewhere. */
const MoneyText = z.union([z.string(), z.number()]).nullish();

/**
 * An account as `GET /api/v1/accounts` renders it. Sure sends every key below; only `id` and `name`
 * are required, so smaller servers read too.
 */
export const AccountSchema = z
  .object({
    /** The account's UUID. */
    id: z.string(),
    /** The account's display name. */
    name: z.string(),
    /** `depository`, `investment`, `crypto`, `property`, `vehicle`, `other_asset`, `credit_card`, `loan`, `other_liability`. */
    account_type: z.string().nullish(),
    /** ISO code of the account, e.g. `USD`. */
    currency: z.string().nullish(),
    /** Display string (`"$1,234.56"`, `"-$50.00"`); parse `balance_cents` instead where present. */
    balance: MoneyText,
    /** Signed balance in minor units. */
    balance_cents: WireCents,
    /** The cash part of the balance, as a display string like `balance`. */
    cash_balance: MoneyText,
    /** The cash part of the balance in minor units. */
    cash_balance_cents: WireCents,
    /** `asset` or `liability`. */
    classification: z.string().nullish(),
    /** A finer kind within `account_type` (`checking`, `savings`, …), when set. */
    subtype: z.string().nullish(),
    /** `draft`, `active`, `disabled` or `pending_deletion`. */
    status: z.string().nullish(),
    /** The bank's name, when known. */
    institution_name: z.string().nullish(),
    /** The bank's web domain, when known. */
    institution_domain: z.string().nullish(),
    /** ISO 8601 creation time. */
    created_at: z.string().nullish(),
    /** ISO 8601 time of the last change. */
    updated_at: z.string().nullish(),
  })
  .loose();

/** An account as `accounts.list()` yields it: `id` and `name` always, the rest as the server sends them. */
export type Account = z.output<typeof AccountSchema>;
/** A category as `categories.list()` yields it, and as a transaction's `category` holds it. */
export type Category = z.output<typeof CategorySchema>;
/** A merchant as `merchants.list()` returns it, and as a transaction's `merchant` holds it. */
export type Merchant = z.output<typeof MerchantSchema>;
/** A tag as `tags.list()` and `tags.create()` return it, and as a transaction's `tags` hold it. */
export type Tag = z.output<typeof TagSchema>;

// `pagination` is `null` when the server sent the whole list at once (it does not page).
const MaybePagination = PaginationSchema.nullish().transform((value) => value ?? null);

/** `{ accounts, pagination }` (Sure), or `{ accounts }` (a server that does not page). */
export const AccountPageSchema = z
  .object({
    /** The page's accounts. */
    accounts: z.array(AccountSchema),
    /** Where the page sits in the index; `null` when absent. */
    pagination: MaybePagination,
  })
  .loose();

/** `{ categories, pagination }` (Sure), or `{ categories }` (a server that does not page). */
export const CategoryPageSchema = z
  .object({
    /** The page's categories. */
    categories: z.array(CategorySchema),
    /** Where the page sits in the index; `null` when absent. */
    pagination: MaybePagination,
  })
  .loose();

/**
 * `GET /api/v1/merchants`: Sure answers a bare JSON array (not paged); `{ merchants: [...] }`,
 * optionally with `pagination`, is read too.
 */
export const MerchantListSchema = z.union([
  z.array(MerchantSchema).transform((items) => ({
    /** Every merchant of the answer. */
    items,
    /** Always `null`: a bare array is not paged. */
    pagination: null,
  })),
  z
    .object({
      /** The merchants. */
      merchants: z.array(MerchantSchema),
      /** Where the page sits in the index; `null` when absent. */
      pagination: MaybePagination,
    })
    .loose()
    .transform((wire) => ({
      /** Every merchant of the answer. */
      items: wire.merchants,
      /** Where the page sits in the index, or `null` when the server does not page. */
      pagination: wire.pagination,
    })),
]);

/** `GET /api/v1/tags`: a bare JSON array on Sure (not paged); `{ tags: [...] }` is read too. */
export const TagListSchema = z.union([
  z.array(TagSchema).transform((items) => ({
    /** Every tag of the answer. */
    items,
    /** Always `null`: a bare array is not paged. */
    pagination: null,
  })),
  z
    .object({
      /** The tags. */
      tags: z.array(TagSchema),
      /** Where the page sits in the index; `null` when absent. */
      pagination: MaybePagination,
    })
    .loose()
    .transform((wire) => ({
      /** Every tag of the answer. */
      items: wire.tags,
      /** Where the page sits in the index, or `null` when the server does not page. */
      pagination: wire.pagination,
    })),
]);

/** Sure's tag color rule (`Tag` model): `#` and six hex digits. */
export const TAG_COLOR = /^#[0-9A-Fa-f]{6}$/;

/**
 * The members of `POST /api/v1/tags` (sent as `{ "tag": { … } }`). The name must be unique in the
 * family (exactly: `Food` and `food` are two tags); without `color` the service stores `#e99537`.
 */
export const TagCreateSchema = z.object({
  /** The tag's name; not blank, and unique in the family. */
  name: nonBlank('Name'),
  /** `#` and six hex digits, e.g. `#3b82f6`. Default: the service's `#e99537`. */
  color: textMember('Color')
    .regex(TAG_COLOR, { message: 'Color must be # and six hex digits, e.g. #3b82f6' })
    .optional(),
});

/** The body of `tags.create(body)`: `{ name, color? }`. */
export type TagCreate = z.input<typeof TagCreateSchema>;

/** The request body: `{ "tag": { … } }`. */
export const TagCreateRequestSchema = z.object({
  /** The new tag's members. */
  tag: TagCreateSchema,
});
