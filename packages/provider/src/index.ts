export { ProviderClient, DEFAULT_BASE_URL } from './client.js';
export { MAX_ACCOUNT_ID_LENGTH } from './options.js';
/** Why no HTTP header can carry a key (`'control character'`, `'past U+00FF'`), or undefined: check one before storing it. */
export { apiKeyFault } from '@finsync/internals/http';
export type {
  ProviderClientOptions,
  CallOptions,
  ListTransactionsOptions,
  HoldingsResult,
  TransactionList,
} from './client.js';
export type { TransactionPage, TransactionWindow } from './transactions.js';
export type { SpillSettings } from './whole-history.js';
export type { RateLimitOptions } from './core/http.js';
export type { ProviderLogger } from './core/logger.js';
export {
  ProviderError,
  ProviderAPIError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  RequestAbortedError,
  RedirectError,
  InvalidResponseError,
} from './core/errors.js';
export type { ResponseIssue, ErrorContext, APIErrorContext, RateLimitErrorContext } from './core/errors.js';
export type { Account, AccountStatus, Balance, Holding, Transaction } from './wire/schemas.js';
export {
  AccountSchema,
  AccountListSchema,
  BalanceSchema,
  HoldingSchema,
  HoldingsSchema,
  createTransactionSchema,
  createTransactionListSchema,
} from './wire/schemas.js';
export {
  toDecimalString,
  negateDecimal,
  decimalToMinorUnits,
  minorUnitsToDecimal,
  currencyScale,
  type DecimalString,
} from '@finsync/internals/money';
export { toAmountCents } from '@finsync/internals/currencies';
export {
  toCalendarDate,
  isValidCalendarDate,
  addDays,
  daysBetween,
  type CalendarDate,
} from '@finsync/internals/calendar';
