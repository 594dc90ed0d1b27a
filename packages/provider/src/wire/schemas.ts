/**
 * Zod schemas for every provider payload, lenient exactly where real payloads are known to vary
 * (see the package README, "What we accept"), each transforming into one normalized model.
 */
import { z } from 'zod';
import { toCalendarDate } from '@finsync/internals/calendar';
import { shown } from '@finsync/internals/http';
import { toDecimalString } from '@finsync/internals/money';
import { storableText } from '@finsync/internals/text';

function fail(ctx: z.core.$RefinementCtx, input: unknown, message: string): never {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER as never;
}

/** Ids arrive as JSON integers or strings; we always hand out strings. */
const id = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = storableText(String(value).trim());
  return text === '' ? fail(ctx, value, 'expected a non-empty id') : text;
});

/** Pending rows carry `null` or `""` as their id: both mean "no id". */
const optionalId = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((value) => {
    if (value === null || value === undefined) return null;
    const text = storableText(String(value).trim());
    return text === '' ? null : text;
  });

const decimal = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const parsed = toDecimalString(value);
  return parsed === undefined ? fail(ctx, value, `expected a decimal number, got ${shown(value)}`) : parsed;
});

const optionalDecimal = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((value, ctx) => {
    if (value === null || value === undefined || value === '') return null;
    const parsed = toDecimalString(value);
    return parsed === undefined ? fail(ctx, value, `expected a decimal number, got ${shown(value)}`) : parsed;
  });

/** Blank and whitespace-only text carries no information; it becomes `null`. */
const optionalText = z
  .string()
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined) return null;
    const trimmed = storableText(value.trim());
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

/**
 * Reads one entry of `GET /accounts`'s `accounts` array (`{ id, name, institution_name, … }`, ids as
 * numbers or strings, snake_case or camelCase connection id) into an `Account`.
 */
export const AccountSchema = z
  .object({
    /** The account id, a JSON number or string. */
    id,
    /** The bank connection's id, as the provider's docs spell it. */
    connection_id: optionalId,
    /** The same, as some payloads spell it. */
    connectionId: optionalId,
    /** The account's display name. */
    name: z.string().nullish(),
    /** The bank's name. */
    institution_name: optionalText,
    /** URL of the bank's logo. */
    institution_logo: optionalText,
    /** The upstream aggregator, any case. */
    provider: optionalText,
    /** ISO 4217 code, any case; often absent. */
    currency: currencyCode,
    /** `ACTIVE`, `DISCONNECTED` or `ERROR`, any case. */
    status: optionalText,
  })
  .transform((wire) => ({
    /** The account id, always a string; pass it to the other methods. */
    id: wire.id,
    /** The id of the bank connection the account belongs to, or `null` when the provider sent none. */
    connectionId: wire.connection_id ?? wire.connectionId,
    /** The account's display name, trimmed; `''` when the provider sent none. */
    name: storableText((wire.name ?? '').trim()),
    /** The bank's name, or `null`. */
    institutionName: wire.institution_name,
    /** URL of the bank's logo, or `null`. */
    institutionLogo: wire.institution_logo,
    /** The upstream aggregator behind the account, lower-cased (e.g. `gocardless`), or `null`. */
    provider: wire.provider === null ? null : wire.provider.toLowerCase(),
    /** ISO 4217 code, upper-cased, or `null` (often absent here: `getBalance` has the real one). */
    currency: wire.currency,
    /** The account's connection state, upper-cased (see `AccountStatus`), or `null`. */
    status: (wire.status === null ? null : wire.status.toUpperCase()) as AccountStatus | null,
  }));

/**
 * An account as `listAccounts()` returns it: `{ id, connectionId, name, institutionName, institutionLogo,
 * provider, currency, status }`, `id` a string and the others `null` when the provider left them out.
 * `currency` is often missing here: `/balance` has the real one.
 */
export type Account = z.output<typeof AccountSchema>;

/** Reads the body of `GET /accounts`, `{ accounts: [...], total }`. */
export const AccountListSchema = z.object({
  /** Every account the key can see. */
  accounts: z.array(AccountSchema),
  /** The number of accounts, when sent (`null` read as not sent); not relied on. */
  total: z.number().nullish(),
});

// ---------------------------------------------------------------------------------------------------
// Balance

const balanceObject = z.object({
  /** The balance, as the current contract names it. */
  amount: optionalDecimal,
  /** The balance, as the older contract names it; read when `amount` is absent. */
  current: optionalDecimal,
  /** The available balance, when the bank reports one. */
  available: optionalDecimal,
  /** ISO 4217 code of the balance. */
  currency: currencyCode,
});

/**
 * Reads the body of `GET /accounts/{id}/balance` into a `Balance`: `{ balance: { amount, currency } }`,
 * the older `{ balance: { current, available } }`, or a flat `{ balance: 100.0, currency }`.
 */
export const BalanceSchema = z
  .object({
    /** The balance object, or a bare number or decimal string. */
    balance: z.union([balanceObject, z.number(), z.string()]),
    /** ISO 4217 code beside the balance, read when the balance object has none. */
    currency: currencyCode,
  })
  .transform((wire, ctx) => {
    if (typeof wire.balance !== 'object') {
      // A flat `{ balance: 100.0, currency }` has been seen in test doubles; accept it.
      const amount = toDecimalString(wire.balance);
      if (amount === undefined) return fail(ctx, wire.balance, 'expected a decimal balance');
      return {
        /** The balance, a canonical decimal string; signed from the holder's view. */
        amount,
        /** The available balance, a decimal string, or `null` when the bank reports none. */
        available: null,
        /** ISO 4217 code, upper-cased: the account's authoritative currency, or `null` if none was sent. */
        currency: wire.currency,
      };
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
    return {
      /** The balance, a canonical decimal string; signed from the holder's view. */
      amount,
      /** The available balance, a decimal string, or `null` when the bank reports none. */
      available: wire.balance.available,
      /** ISO 4217 code, upper-cased: the account's authoritative currency, or `null` if none was sent. */
      currency: wire.balance.currency ?? wire.currency,
    };
  });

/**
 * An account balance, `{ amount, available, currency }`: exact decimal strings (`available` `null` when
 * the bank reports none) and the account's authoritative ISO 4217 code. `amount` is signed from the
 * holder's view: an owed card or loan is negative.
 */
export type Balance = z.output<typeof BalanceSchema>;

// ---------------------------------------------------------------------------------------------------
// Transactions

const dateValue = z.union([z.string(), z.number()]);

/** The members of a transaction row the schema reads; it drops any other. */
const transactionWire = {
  /** The row's id, a number or string; `null`, `""` or absent on pending rows. */
  id: optionalId,
  /** An older name for `id`, read when `id` is absent. */
  transaction_id: optionalId,
  /** The account's id; ignored, the client fills it from the request. */
  accountId: optionalId,
  /** The same, snake_case. */
  account_id: optionalId,
  /** Signed amount, a JSON number or decimal string. */
  amount: decimal,
  /** ISO 4217 code, any case. */
  currency: currencyCode,
  /** `YYYY-MM-DD`, an ISO timestamp, or unix seconds. */
  date: dateValue,
  /** The merchant's name. */
  merchant: optionalText,
  /** Another name for `merchant`. */
  merchant_name: optionalText,
  /** Another name for `merchant`. */
  payee: optionalText,
  /** The bank's description text. */
  description: optionalText,
  /** The pending flag: a boolean, `"true"`/`"false"`, or 1/0. */
  isPending: flag,
  /** Another name for `isPending`. */
  pending: flag,
  /** Another name for `isPending`. */
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
        message: `expected a date, got ${shown(wire.date)}`,
        input: wire.date,
        path: ['date'],
      });
      return z.NEVER;
    }
    return {
      /**
       * The provider's id for the row, or `null` for a pending row it gave none. A posted row gets a
       * new id, different from its pending row's, and some banks re-issue posted ids.
       */
      id: wire.id ?? wire.transaction_id,
      /** The account the row belongs to: the one asked for (empty only until the client fills it). */
      accountId: wire.accountId ?? wire.account_id ?? '',
      /** Signed canonical decimal string: negative is money out (e.g. `-23.4`). */
      amount: wire.amount,
      /** ISO 4217 code, upper-cased, or `null` when the row has none. */
      currency: wire.currency,
      /** The day the bank files the row under, `YYYY-MM-DD` (a timestamp read in `timeZone`, if set). */
      date,
      /** The merchant's name, trimmed, or `null` (blank counts as none). */
      merchant: wire.merchant ?? wire.merchant_name ?? wire.payee,
      /** The bank's description text, trimmed, or `null`. */
      description: wire.description,
      /** True for an authorisation not yet posted; absent on the wire counts as `false`. */
      isPending: readFlag(wire.isPending) ?? readFlag(wire.pending) ?? readFlag(wire.is_pending) ?? false,
    };
  });
}

/**
 * A transaction: `{ id, accountId, amount, currency, date, merchant, description, isPending }`, with
 * `amount` an exact decimal string and `date` a `YYYY-MM-DD` day. `amount` is signed: negative is money
 * out, positive money in (unless the user turned on "Reverse amounts" in the provider). `id` is `null`
 * for pending rows the provider gives no id to.
 */
export type Transaction = z.output<ReturnType<typeof createTransactionSchema>>;

/**
 * Builds the schema for the body of `GET /accounts/{id}/transactions`, `{ transactions: [...], total }`,
 * with timestamps read in `timeZone` (an IANA zone; omitted: each timestamp's own clock).
 */
export function createTransactionListSchema(timeZone?: string) {
  return z.object({
    /** The rows of the window asked for. */
    transactions: z.array(createTransactionSchema(timeZone)),
    /**
     * How many rows the provider has for the window; more than it sent means the answer was cut short.
     * `null` is read as not sent: it is informational, and refusing it refused every row beside it.
     */
    total: z.number().nullish(),
    /** An older name for `total`. */
    count: z.number().nullish(),
  });
}

// ---------------------------------------------------------------------------------------------------
// Holdings

const SecuritySchema = z
  .object({
    /** The security's name. */
    name: optionalText,
    /** Exchange ticker. */
    tickerSymbol: optionalText,
    /** The same, snake_case. */
    ticker_symbol: optionalText,
    /** ISO 4217 code the security is priced in. */
    currency: currencyCode,
    /** OpenFIGI identifier. */
    figi: optionalText,
    /** CUSIP, as the provider spells it. */
    cusp: optionalText,
    /** CUSIP, spelled correctly. */
    cusip: optionalText,
    /** ISIN. */
    isin: optionalText,
  })
  .transform((wire) => ({
    /** The security's name, or `null`. */
    name: wire.name,
    /** Exchange ticker, or `null`. */
    tickerSymbol: wire.tickerSymbol ?? wire.ticker_symbol,
    /** ISO 4217 code the security is priced in, upper-cased, or `null`. */
    currency: wire.currency,
    /** OpenFIGI identifier, or `null`. */
    figi: wire.figi,
    /** The provider spells it `cusp`; both spellings are read. */
    cusip: wire.cusp ?? wire.cusip,
    /** ISIN, or `null`. */
    isin: wire.isin,
  }));

function firstNestedId(raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object') return null;
  for (const value of Object.values(raw as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object' && 'id' in value) {
      const found = (value as { id: unknown }).id;
      // The holding's key is made from it: as every store keeps it (see `storableText`). A blank one
      // is no id, as for transactions and accounts: every holding with one shared the key `id:`.
      if (typeof found === 'string' || typeof found === 'number') {
        const id = String(found);
        if (id.trim() !== '') return storableText(id);
      }
    }
  }
  return null;
}

/**
 * Reads one entry of `GET /accounts/{id}/holdings`'s `holdings` array (`{ security, quantity, price,
 * value, costBasis, currency, raw }`) into a `Holding`.
 */
export const HoldingSchema = z
  .object({
    /** The security held; may be missing. */
    security: SecuritySchema.nullish(),
    /** Units held, a number or decimal string. */
    quantity: decimal,
    /** Price per unit. */
    price: optionalDecimal,
    /** Market value of the position. */
    value: optionalDecimal,
    /** Total cost of the position. */
    costBasis: optionalDecimal,
    /** ISO 4217 code of the money fields. */
    currency: currencyCode,
    /** The upstream aggregator's own record, keyed by aggregator name. */
    raw: z.unknown().optional(),
  })
  .transform((wire) => ({
    /** The upstream aggregator's holding id from `raw`, when it has one. */
    providerId: firstNestedId(wire.raw),
    /** The security held; every field `null` when the provider sent none. */
    security: wire.security ?? {
      name: null,
      tickerSymbol: null,
      currency: null,
      figi: null,
      cusip: null,
      isin: null,
    },
    /** Units held, a canonical decimal string (fractional for funds). */
    quantity: wire.quantity,
    /** Price per unit, a decimal string, or `null` when not sent. */
    price: wire.price,
    /** Market value of the position, a decimal string, or `null` when not sent. */
    value: wire.value,
    /** Total cost of the position, a decimal string, or `null` when the broker does not report it. */
    costBasis: wire.costBasis,
    /**
     * ISO 4217 code of the money fields, upper-cased: the holding's, else its security's, else (in
     * `HoldingsSchema`) the envelope's, else `null`.
     */
    currency: wire.currency ?? wire.security?.currency ?? null,
    /** The upstream aggregator's own record, unread, or `null`. */
    raw: wire.raw ?? null,
  }));

/**
 * One position of an investment account, as `getHoldings` returns it: `{ providerId, security, quantity,
 * price, value, costBasis, currency, raw }`, `security` holding `name`, `tickerSymbol`, `figi`, `cusip`
 * and `isin`. Money and quantities are exact decimal strings, or `null` when the provider left them out.
 */
export type Holding = z.output<typeof HoldingSchema>;

/** Reads the body of `GET /accounts/{id}/holdings`, `{ holdings: [...], totalValue, currency }`. */
export const HoldingsSchema = z
  .object({
    /** Every position of the account. */
    holdings: z.array(HoldingSchema),
    /** Total market value. */
    totalValue: optionalDecimal,
    /** The same, snake_case. */
    total_value: optionalDecimal,
    /** ISO 4217 code of the total. */
    currency: currencyCode,
  })
  .transform((wire) => ({
    /**
     * Every position of the account. A position whose entry and security both leave the currency out
     * is in the envelope's: the total is their sum, in one currency, and the provider names it there.
     */
    holdings:
      wire.currency === null
        ? wire.holdings
        : wire.holdings.map((holding) =>
            holding.currency === null ? { ...holding, currency: wire.currency } : holding,
          ),
    /** Total market value, a decimal string, or `null` when not sent. */
    totalValue: wire.totalValue ?? wire.total_value,
    /** ISO 4217 code of the total, upper-cased, or `null`. */
    currency: wire.currency,
  }));

/** The provider's error body, `{ error, message }`, when it sends one. */
export const ErrorBodySchema = z.object({
  error: z.string().optional(),
  message: z.string().optional(),
});
