/**
 * The server's own request schemas. Each route validates with these and the OpenAPI document is
 * generated from them, so the two cannot disagree. They check shape and size; the service's
 * semantics (null leaves a member unchanged, `nature` flips the sign, …) are applied by the handlers,
 * a PATCH's with `TransactionUpdateMembers` below.
 */
import { z } from '@hono/zod-openapi';
import { DECIMAL_TEXT, calendarDateOf } from '../input.js';
import { isNature } from '../sign-convention.js';
import { LIMITS } from './limits.js';

const text = (label: string, max: number) =>
  z
    .string({ error: `${label} must be a string` })
    .max(max, `${label} is too long (maximum is ${max} characters)`)
    // PostgreSQL text cannot hold NUL, and SQLite's LIKE stops at it (so `search=%00` matched every row).
    .refine((value) => !value.includes('\u0000'), `${label} must not contain a NUL character`);
const id = (label: string) => text(label, LIMITS.id);
const decimal = z
  .union([z.number(), text('Amount', LIMITS.amountText)])
  .openapi({ description: 'A decimal number, or a string holding one ("12.34"); never "1,234.56"' });
const nature = z.string().max(16).openapi({
  description:
    '`income`/`inflow` store −|amount|, `expense`/`outflow` +|amount| (any case); without it the sign of `amount` decides (positive = expense)',
});
const tagIds = z
  .array(id('A tag id'))
  .max(LIMITS.tagIds, `tag_ids can hold at most ${LIMITS.tagIds} tags`)
  .nullable()
  .openapi({ description: 'Replaces the tags exactly; `[]` or `null` removes them all' });

/** The members PATCH reads; any other member is ignored, as by the service. */
export const TransactionUpdateBody = z
  .object({
    transaction: z
      .object({
        name: text('Name', LIMITS.name).nullish(),
        // Checked (as text, within the name's bound) only when it is used: as the service, it is
        // ignored when `name` is sent.
        description: z
          .unknown()
          .optional()
          .openapi({
            type: ['string', 'null'],
            maxLength: LIMITS.name,
            description:
              'Used as the name when `name` is absent (`null` leaves it unchanged); ignored otherwise',
          }),
        notes: text('Notes', LIMITS.notes)
          .nullish()
          .openapi({ description: '`""` clears the notes; `null` leaves them unchanged' }),
        date: text('Date', 32).nullish().openapi({ example: '2026-05-02' }),
        amount: decimal.nullish(),
        nature: nature.nullish(),
        currency: z.unknown().optional().openapi({
          type: 'string',
          description: 'Accepted and ignored (whatever it holds), as by the service',
        }),
        category_id: id('category_id')
          .nullish()
          .openapi({ description: 'Cannot be cleared: `null` and `""` change nothing' }),
        merchant_id: id('merchant_id')
          .nullish()
          .openapi({ description: 'Cannot be cleared: `null` and `""` change nothing' }),
        tag_ids: tagIds.optional(),
      })
      .loose(),
  })
  .loose()
  .openapi('TransactionUpdateRequest', {
    example: { transaction: { name: 'Corner shop', notes: 'weekly shop', tag_ids: [] } },
  });

/** A string member; `what` names it in messages ("Name must be a string"). */
const member = (what: string) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`),
  });
const nonBlank = (what: string) => member(what).refine((s) => s.trim() !== '', `${what} can't be blank`);

/**
 * The second step of a PATCH, after `TransactionUpdateBody` has passed and the handler has dropped
 * the members that mean "unchanged" (`null`, a blank id or amount): the service's rule for each
 * member, every problem listed in this order. Text that is not valid Unicode never gets here
 * (the route's well-formed-text check answers it first).
 */
export const TransactionUpdateMembers = z.object({
  // As the service's date type: `YYYY-MM-DD`, `YYYY/MM/DD` or a timestamp's written day; anything
  // else (`""` too) is no date.
  date: member('Date')
    .transform((text, ctx) => {
      const date = calendarDateOf(text);
      if (date === undefined)
        ctx.issues.push({ code: 'custom', message: "Date can't be blank", input: text });
      return date ?? z.NEVER;
    })
    .optional(),
  /** Without `nature`, positive is an expense and negative income; with it, the sign is ignored. */
  amount: z
    .union([z.number(), member('Amount').regex(DECIMAL_TEXT, 'Amount must be a decimal number like 12.34')], {
      error: (issue) =>
        issue.input === undefined
          ? 'Amount is required'
          : 'Amount must be a finite number or a decimal string like 12.34',
    })
    .optional(),
  name: nonBlank('Name').optional(),
  description: nonBlank('Description')
    .max(LIMITS.name, `Description is too long (maximum is ${LIMITS.name} characters)`)
    .optional(),
  notes: member('Notes').optional(),
  category_id: nonBlank('Category').optional(),
  merchant_id: nonBlank('Merchant').optional(),
  nature: member('Nature')
    .refine((s) => isNature(s.toLowerCase()), 'Nature must be income, expense, inflow or outflow')
    .optional(),
  tag_ids: z.array(nonBlank('Tag id')).optional(),
});

export const TransactionCreateBody = z
  .object({
    transaction: z
      .object({
        account_id: id('account_id').nullish(),
        name: text('Name', LIMITS.name).nullish(),
        description: text('Description', LIMITS.name).nullish(),
        date: text('Date', 32).nullish(),
        amount: decimal.nullish(),
        nature: nature.nullish(),
        currency: text('Currency', 8).nullish().openapi({ description: "Default: the account's currency" }),
        notes: text('Notes', LIMITS.notes).nullish(),
        category_id: id('category_id').nullish(),
        merchant_id: id('merchant_id').nullish(),
        tag_ids: tagIds.optional(),
        external_id: text('external_id', LIMITS.externalId)
          .nullish()
          .openapi({ description: 'With `source`, makes the create idempotent per account' }),
        source: text('source', LIMITS.source)
          .nullish()
          .openapi({ description: 'Default "api" when `external_id` is set' }),
      })
      .loose(),
  })
  .loose()
  .openapi('TransactionCreateRequest', {
    example: {
      transaction: {
        account_id: '0b7e1f40-5c1a-4a7e-9d6e-2f5a9c3b1d20',
        name: 'Window cleaner',
        amount: '25',
        nature: 'expense',
        date: '2026-05-02',
        external_id: 'inv-1001',
      },
    },
  });

export const TagCreateBody = z
  .object({
    tag: z.object({
      name: text('Name', LIMITS.tagName),
      color: text('Color', LIMITS.color)
        .regex(/^#[0-9a-fA-F]{6}$/, 'Color must be #RRGGBB')
        .optional(),
    }),
  })
  .openapi('TagCreateRequest', { example: { tag: { name: 'Household', color: '#e99537' } } });

export const ProviderKeyBody = z
  .object({
    api_key: text('api_key', LIMITS.providerKey)
      .refine(
        (key) => !/[\u0000-\u001f\u007f]/.test(key),
        'api_key must not contain a control character (a line break?)',
      )
      .openapi({ description: 'Stored encrypted; checked with the provider first' }),
    base_url: text('base_url', LIMITS.baseUrl)
      .optional()
      .openapi({ description: 'The provider URL, `sandbox`, or one the operator allowed' }),
  })
  .openapi('ProviderKeyRequest');

const dateParam = (label: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${label} must be a date (YYYY-MM-DD)`)
    .openapi({ example: '2026-05-01' });
const ids = (label: string) =>
  z
    .union([id(label), z.array(id(label))])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .refine((value) => value.length <= LIMITS.filterIds, `${label} can hold at most ${LIMITS.filterIds} ids`);
const amountParam = (label: string) =>
  z.string().regex(/^-?\d{1,12}(\.\d{1,4})?$/, `${label} must be a decimal number`);

/**
 * A whole number with an optional sign and leading white space, as Ruby's `to_i` reads one (at most
 * 20 digits; a `+` in a query is a space).
 */
const WHOLE_NUMBER = /^\s*[+-]?\d{1,20}$/;

/**
 * As the service's `safe_page_param` / `safe_per_page_param`: a page of 0 is page 1, and a `per_page`
 * outside 1–100 is the default 25 (a Sure client asking for 500 gets rows, not an error). Only what is
 * not a number, or a page past `LIMITS.page`, is refused.
 */
const pageNumber = z
  .string()
  .regex(WHOLE_NUMBER, 'page must be a whole number')
  .transform((text) => Math.max(1, Number(text)))
  .refine((n) => n <= LIMITS.page, `page must be an integer from 1 to ${LIMITS.page}`);
/** `above100`: what a larger `per_page` becomes (25 in the transactions and categories controllers, 100 in the base controller the accounts use). */
const perPageNumber = (above100: 25 | 100 = 25) =>
  z
    .string()
    .regex(WHOLE_NUMBER, 'per_page must be a whole number')
    .transform((text) => {
      const n = Number(text);
      return n >= 1 && n <= 100 ? n : n > 100 ? above100 : 25;
    });

export const PageQuery = z.object({
  page: pageNumber
    .optional()
    .openapi({ description: `From 1 (0 is 1, as the service); at most ${LIMITS.page}`, example: '1' }),
  per_page: perPageNumber().optional().openapi({
    description: '1–100, default 25; any other number is 25, as the service',
    example: '25',
  }),
});

/** The accounts index pages by the service's base controller: a `per_page` above 100 is 100. */
export const AccountPageQuery = PageQuery.extend({
  per_page: perPageNumber(100).optional().openapi({
    description: '1–100, default 25; above 100 is 100, anything else 25, as the service',
    example: '25',
  }),
});

export const TransactionListQuery = PageQuery.extend({
  account_id: id('account_id').optional(),
  'account_ids[]': ids('account_ids').optional(),
  category_id: id('category_id').optional(),
  'category_ids[]': ids('category_ids').optional(),
  merchant_id: id('merchant_id').optional(),
  'merchant_ids[]': ids('merchant_ids').optional(),
  'tag_ids[]': ids('tag_ids').optional().openapi({ description: 'Rows with any of these tags' }),
  // The same lists without brackets, as some clients send them.
  account_ids: ids('account_ids').optional(),
  category_ids: ids('category_ids').optional(),
  merchant_ids: ids('merchant_ids').optional(),
  tag_ids: ids('tag_ids').optional(),
  start_date: dateParam('start_date').optional().openapi({ description: 'Inclusive' }),
  end_date: dateParam('end_date').optional().openapi({ description: 'Inclusive' }),
  min_amount: amountParam('min_amount')
    .optional()
    .openapi({ description: 'In the internal sign, as the service: expenses positive, income negative' }),
  max_amount: amountParam('max_amount').optional(),
  type: z
    .string()
    // Any case, spelt out: the OpenAPI document's `pattern` has no flags, and an `i` would be lost.
    .regex(/^(?:[Ii][Nn][Cc][Oo][Mm][Ee]|[Ee][Xx][Pp][Ee][Nn][Ss][Ee])$/, 'type must be income or expense')
    .optional()
    .openapi({ description: '`income` (amount < 0) or `expense` (amount > 0)' }),
  search: text('search', LIMITS.search)
    .optional()
    .openapi({ description: 'Part of the name, the notes or the merchant name; ASCII letters in any case' }),
});

export const IdParam = z.object({
  // No length of its own (Node bounds a request line): an id that is no UUID is a 404, as the service.
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '6f1c2a9e-0d4b-4c1e-9a57-2f0e8b1d3c44' }),
});
