/**
 * The wire format of the lookup resources — accounts, categories, merchants, tags — read leniently:
 * Sure's `/api/v1` renders more than an older or smaller server (finsync's reference server) does,
 * and paginates some lists where others send one plain list.
 */
import { z } from 'zod';
import { CategorySchema, MerchantSchema, PaginationSchema, TagSchema, nonBlank } from './schemas.js';
import { textMember } from './text.js';

/** `"$1,234.56"` on Sure (localized, like a transaction's `amount`); a plain decimal elsewhere. */
const MoneyText = z.union([z.string(), z.number()]).nullish();

/**
 * An account as `GET /api/v1/accounts` renders it. Sure sends every key below; only `id` and `name`
 * are required, so smaller servers read too.
 */
export const AccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** `depository`, `investment`, `crypto`, `property`, `vehicle`, `other_asset`, `credit_card`, `loan`, `other_liability`. */
    account_type: z.string().nullish(),
    currency: z.string().nullish(),
    /** Display string (`"$1,234.56"`, `"-$50.00"`); parse `balance_cents` instead where present. */
    balance: MoneyText,
    /** Signed balance in minor units. */
    balance_cents: z.number().int().nullish(),
    cash_balance: MoneyText,
    cash_balance_cents: z.number().int().nullish(),
    /** `asset` or `liability`. */
    classification: z.string().nullish(),
    subtype: z.string().nullish(),
    /** `draft`, `active`, `disabled` or `pending_deletion`. */
    status: z.string().nullish(),
    institution_name: z.string().nullish(),
    institution_domain: z.string().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
  })
  .loose();

export type Account = z.output<typeof AccountSchema>;
export type Category = z.output<typeof CategorySchema>;
export type Merchant = z.output<typeof MerchantSchema>;
export type Tag = z.output<typeof TagSchema>;

// `pagination` is `null` when the server sent the whole list at once (it does not page).
const MaybePagination = PaginationSchema.nullish().transform((value) => value ?? null);

/** `{ accounts, pagination }` (Sure), or `{ accounts }` (a server that does not page). */
export const AccountPageSchema = z
  .object({ accounts: z.array(AccountSchema), pagination: MaybePagination })
  .loose();

/** `{ categories, pagination }` (Sure), or `{ categories }` (a server that does not page). */
export const CategoryPageSchema = z
  .object({ categories: z.array(CategorySchema), pagination: MaybePagination })
  .loose();

/**
 * `GET /api/v1/merchants`: Sure answers a bare JSON array (not paged); `{ merchants: [...] }`,
 * optionally with `pagination`, is read too.
 */
export const MerchantListSchema = z.union([
  z.array(MerchantSchema).transform((items) => ({ items, pagination: null })),
  z
    .object({ merchants: z.array(MerchantSchema), pagination: MaybePagination })
    .loose()
    .transform((wire) => ({ items: wire.merchants, pagination: wire.pagination })),
]);

/** `GET /api/v1/tags`: a bare JSON array on Sure (not paged); `{ tags: [...] }` is read too. */
export const TagListSchema = z.union([
  z.array(TagSchema).transform((items) => ({ items, pagination: null })),
  z
    .object({ tags: z.array(TagSchema), pagination: MaybePagination })
    .loose()
    .transform((wire) => ({ items: wire.tags, pagination: wire.pagination })),
]);

/** Sure's tag color rule (`Tag` model): `#` and six hex digits. */
export const TAG_COLOR = /^#[0-9A-Fa-f]{6}$/;

/**
 * The members of `POST /api/v1/tags` (sent as `{ "tag": { … } }`). The name must be unique in the
 * family (exactly: `Food` and `food` are two tags); without `color` the service stores `#e99537`.
 */
export const TagCreateSchema = z.object({
  name: nonBlank('Name'),
  color: textMember('Color')
    .regex(TAG_COLOR, { message: 'Color must be # and six hex digits, e.g. #3b82f6' })
    .optional(),
});

export type TagCreate = z.input<typeof TagCreateSchema>;

/** The request body: `{ "tag": { … } }`. */
export const TagCreateRequestSchema = z.object({ tag: TagCreateSchema });
