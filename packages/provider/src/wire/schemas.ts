/**
 * Zod schemas for every provider payload, lenient exactly where real payloads are known to vary
 * (see the package README, "What we accept"), each transforming into one normalized model.
 */
import { z } from 'zod';
import { toCalendarDate } from '@finsync/internals/calendar';
import { toDecimalString } from '@finsync/internals/money';

function fail(ctx: z.core.$RefinementCtx, input: unknown, message: string): never {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER as never;
}

/**
 * NUL is the one character PostgreSQL's text cannot hold: a merchant with one made its account
 * unsyncable there, while SQLite kept it. Read as U+FFFD here, the text is the same in every store.
 */
export function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** Ids arrive as JSON integers or strings; we always hand out strings. */
const id = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = withoutNul(String(value).trim());
  return text === '' ? fail(ctx, value, 'expected a non-empty id') : text;
});

/** Pending rows carry `null` or `""` as their id: both mean "no id". */
const optionalId = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((value) => {
    if (value === null || value === undefined) return null;
    const text = withoutNul(String(value).trim());
    return text === '' ? null : text;
  });

const decimal = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const parsed = toDecimalString(value);
  return parsed === undefined
    ? fail(ctx, value, `expected a decimal number, got ${JSON.stringify(value)}`)
    : parsed;
});

const optionalDecimal = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((value, ctx) => {
    if (value === null || value === undefined || value === '') return null;
    const parsed = toDecimalString(value);
    return parsed === undefined
      ? fail(ctx, value, `expected a decimal number, got ${JSON.stringify(value)}`)
      : parsed;
  });

/** Blank and whitespace-only text carries no information; it becomes `null`. */
const optionalText = z
  .string()
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined) return null;
    const trimmed = withoutNul(value.trim());
    return trimmed === '' ? null : trimmed;
  });

const currencyCode = optionalText.transform((value) => (value === null ? null : value.toUpperCase()));

const flag = z.union([z.boolean(), z.string(), z.number(), z.null()]).optional();

function readFlag(value: z.infer<typeof flag>): boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === '1' || text === 'yes') return true;
  if (text === 'false' || text === '0' || text === 'no' || text === '') return false;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Accounts

/** `ACTIVE`, `DISCONNECTED` and `ERROR` are documented; anything else passes through upper-cased. */
export type AccountStatus = 'ACTIVE' | 'DISCONNECTED' | 'ERROR' | (string & {});

export const AccountSchema = z
  .object({
    id,
    connection_id: optionalId,
    connectionId: optionalId,
    name: z.string().nullish(),
    institution_name: optionalText,
    institution_logo: optionalText,
    provider: optionalText,
    currency: currencyCode,
    status: optionalText,
  })
  .transform((wire) => ({
    id: wire.id,
    connectionId: wire.connection_id ?? wire.connectionId,
    name: withoutNul((wire.name ?? '').trim()),
    institutionName: wire.institution_name,
    institutionLogo: wire.institution_logo,
    provider: wire.provider === null ? null : wire.provider.toLowerCase(),
    currency: wire.currency,
    status: (wire.status === null ? null : wire.status.toUpperCase()) as AccountStatus | null,
  }));

/** An account as `listAccounts()` returns it. `currency` is often missing here: `/balance` has the real one. */
export type Account = z.output<typeof AccountSchema>;

export const AccountListSchema = z.object({
  accounts: z.array(AccountSchema),
  total: z.number().optional(),
});

// ---------------------------------------------------------------------------------------------------
// Balance

const balanceObject = z.object({
  amount: optionalDecimal,
  current: optionalDecimal,
  available: optionalDecimal,
  currency: currencyCode,
});

export const BalanceSchema = z
  .object({
    balance: z.union([balanceObject, z.number(), z.string()]),
    currency: currencyCode,
  })
  .transform((wire, ctx) => {
    if (typeof wire.balance !== 'object') {
      // A flat `{ balance: 100.0, currency }` has been seen in test doubles; accept it.
      const amount = toDecimalString(wire.balance);
      if (amount === undefined) return fail(ctx, wire.balance, 'expected a decimal balance');
      return { amount, available: null, currency: wire.currency };
    }
    const amount = wire.balance.amount ?? wire.balance.current;
    if (amount === null) {
      ctx.issues.push({
        code: 'custom',
        message: 'balance has neither amount nor current',
        input: wire.balance,
        path: ['balance', 'amount'],
      });
      return z.NEVER;
    }
    return { amount, available: wire.balance.available, currency: wire.balance.currency ?? wire.currency };
  });

/** An account balance. `amount` is signed from the holder's view: an owed card or loan is negative. */
export type Balance = z.output<typeof BalanceSchema>;

// ---------------------------------------------------------------------------------------------------
// Transactions

const dateValue = z.union([z.string(), z.number()]);

/** The members of a transaction row the schema reads; it drops any other. */
const transactionWire = {
  id: optionalId,
  transaction_id: optionalId,
  accountId: optionalId,
  account_id: optionalId,
  amount: decimal,
  currency: currencyCode,
  date: dateValue,
  merchant: optionalText,
  merchant_name: optionalText,
  payee: optionalText,
  description: optionalText,
  isPending: flag,
  pending: flag,
  is_pending: flag,
};

/** The keys of a transaction row the schema reads: any other key of a row is dropped unread. */
export const TRANSACTION_WIRE_KEYS: readonly string[] = Object.keys(transactionWire);

/** Builds the transaction schema for one client: timestamps are read in its `timeZone`. */
export function createTransactionSchema(timeZone?: string) {
  return z.object(transactionWire).transform((wire, ctx) => {
    const date = toCalendarDate(wire.date, timeZone);
    if (date === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: `expected a date, got ${JSON.stringify(wire.date)}`,
        input: wire.date,
        path: ['date'],
      });
      return z.NEVER;
    }
    return {
      id: wire.id ?? wire.transaction_id,
      /** Empty only until the client fills it from the request path. */
      accountId: wire.accountId ?? wire.account_id ?? '',
      amount: wire.amount,
      currency: wire.currency,
      date,
      merchant: wire.merchant ?? wire.merchant_name ?? wire.payee,
      description: wire.description,
      isPending: readFlag(wire.isPending) ?? readFlag(wire.pending) ?? readFlag(wire.is_pending) ?? false,
    };
  });
}

/**
 * A transaction. `amount` is signed: negative is money out, positive money in (unless the user
 * turned on "Reverse amounts" in the provider). `id` is `null` for pending rows the provider gives
 * no id to.
 */
export type Transaction = z.output<ReturnType<typeof createTransactionSchema>>;

export function createTransactionListSchema(timeZone?: string) {
  return z.object({
    transactions: z.array(createTransactionSchema(timeZone)),
    total: z.number().optional(),
    count: z.number().optional(),
  });
}

// ---------------------------------------------------------------------------------------------------
// Holdings

const SecuritySchema = z
  .object({
    name: optionalText,
    tickerSymbol: optionalText,
    ticker_symbol: optionalText,
    currency: currencyCode,
    figi: optionalText,
    cusp: optionalText,
    cusip: optionalText,
    isin: optionalText,
  })
  .transform((wire) => ({
    name: wire.name,
    tickerSymbol: wire.tickerSymbol ?? wire.ticker_symbol,
    currency: wire.currency,
    figi: wire.figi,
    /** The provider spells it `cusp`; both spellings are read. */
    cusip: wire.cusp ?? wire.cusip,
    isin: wire.isin,
  }));

function firstNestedId(raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object') return null;
  for (const value of Object.values(raw as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object' && 'id' in value) {
      const found = (value as { id: unknown }).id;
      if (typeof found === 'string' || typeof found === 'number') return String(found);
    }
  }
  return null;
}

export const HoldingSchema = z
  .object({
    security: SecuritySchema.nullish(),
    quantity: decimal,
    price: optionalDecimal,
    value: optionalDecimal,
    costBasis: optionalDecimal,
    currency: currencyCode,
    raw: z.unknown().optional(),
  })
  .transform((wire) => ({
    /** The upstream aggregator's holding id from `raw`, when it has one. */
    providerId: firstNestedId(wire.raw),
    security: wire.security ?? {
      name: null,
      tickerSymbol: null,
      currency: null,
      figi: null,
      cusip: null,
      isin: null,
    },
    quantity: wire.quantity,
    price: wire.price,
    value: wire.value,
    costBasis: wire.costBasis,
    currency: wire.currency ?? wire.security?.currency ?? null,
    raw: wire.raw ?? null,
  }));

export type Holding = z.output<typeof HoldingSchema>;

export const HoldingsSchema = z
  .object({
    holdings: z.array(HoldingSchema),
    totalValue: optionalDecimal,
    total_value: optionalDecimal,
    currency: currencyCode,
  })
  .transform((wire) => ({
    holdings: wire.holdings,
    totalValue: wire.totalValue ?? wire.total_value,
    currency: wire.currency,
  }));

/** The provider's error body, `{ error, message }`, when it sends one. */
export const ErrorBodySchema = z.object({
  error: z.string().optional(),
  message: z.string().optional(),
});
