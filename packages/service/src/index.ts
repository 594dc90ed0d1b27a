export { ServiceClient, TransactionsResource } from './client.js';
export type { ServiceClientOptions, CallOptions, RawRequestOptions, QueryValue } from './client.js';
export { AccountsResource, CategoriesResource, MerchantsResource, TagsResource } from './resources.js';
export type { AccountListParams, CategoryListParams } from './resources.js';
export type {
  PagedList,
  TransactionList,
  TransactionPage,
  AccountList,
  AccountPage,
  CategoryList,
  CategoryPage,
} from './pagination.js';
export {
  AccountSchema,
  AccountPageSchema,
  CategoryPageSchema,
  MerchantListSchema,
  TagListSchema,
  TagCreateSchema,
  TagCreateRequestSchema,
} from './resource-schemas.js';
export type { Account, Category, Merchant, Tag, TagCreate } from './resource-schemas.js';
export type { RateLimitSnapshot } from './rate-limit.js';
export { readRateLimit } from './rate-limit.js';
export type { ServiceLogger } from './logger.js';
export {
  ServiceError,
  ServiceAPIError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ValidationError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  RequestAbortedError,
  RedirectError,
  InvalidRequestError,
  InvalidResponseError,
} from './errors.js';
export type { ErrorContext, APIErrorContext, RateLimitErrorContext, Issue } from './errors.js';
// The retry policy is documented (README, "Retry policy"); its timing helpers are internal.
export type { RetryClass } from './retry.js';
export {
  AccountRefSchema,
  CategorySchema,
  MerchantSchema,
  TagSchema,
  TransferSchema,
  TransactionSchema,
  PaginationSchema,
  TransactionPageSchema,
  ErrorBodySchema,
  TransactionUpdateSchema,
  TransactionUpdateRequestSchema,
  TransactionCreateSchema,
  TransactionCreateRequestSchema,
  TransactionDeleteResultSchema,
  isCalendarDate,
} from './schemas.js';
export { currencyScale } from '@finsync/internals/money';
export {
  serviceCurrency,
  toAmountCents,
  amountCentsToDecimal,
  type ServiceCurrency,
} from '@finsync/internals/currencies';
export type {
  Transaction,
  Pagination,
  ErrorBody,
  TransactionUpdate,
  TransactionCreate,
  TransactionCreateResult,
  TransactionDeleteResult,
  TransactionListParams,
  TransactionDeletedListParams,
} from './schemas.js';
export { isWellFormedText } from './text.js';
