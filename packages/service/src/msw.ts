// The `@finsync/service/msw` entry: an in-memory fake of the service and MSW handlers that serve it.
// It imports msw's core only (never 'msw/node'), so the handlers work under setupServer and
// setupWorker, and msw stays an optional peer dependency.
import { http } from 'msw';
import type { HttpHandler } from 'msw';
import { DEFAULT_FAKE_BASE_URL, handleServiceRequest, type FakeServiceOptions } from './fake/handlers.js';
import type { FakeServiceStore } from './fake/store.js';

export { FakeServiceStore, UUID_PATTERN, isoSeconds } from './fake/store.js';
export type {
  Optional,
  AccountStatus,
  ApiKeyScope,
  FakeAccount,
  FakeAccountSeed,
  FakeApiKey,
  FakeApiKeySeed,
  FakeCategory,
  FakeCategorySeed,
  FakeMerchant,
  FakeMerchantSeed,
  FakeRequestRecord,
  FakeServiceSeed,
  FakeServiceStoreOptions,
  FakeTag,
  FakeTagSeed,
  FakeTransaction,
  FakeTransactionSeed,
  FakeTransfer,
  FakeTransferSeed,
  MerchantType,
} from './fake/store.js';
export { DEFAULT_FAKE_BASE_URL, handleServiceRequest } from './fake/handlers.js';

/**
 * Options for a `ServiceClient` in your tests: no retries, so a 429 or 503 from the fake (or your own
 * handler) is an error at once instead of after the backoff and `Retry-After` waits a real service
 * deserves. Ask for retries when a test is about them.
 *
 * ```ts
 * new ServiceClient({ baseUrl, apiKey, ...testClientOptions });
 * new ServiceClient({ baseUrl, apiKey, ...testClientOptions, maxRetries: 2 }); // testing retries
 * ```
 */
export const testClientOptions: {
  /** No retries: 0. */
  readonly maxRetries: number;
} = Object.freeze({ maxRetries: 0 });
export type { FakeRateLimitOptions, FakeServiceOptions } from './fake/handlers.js';
export { renderTransaction } from './fake/render.js';
export { renderAccount, renderCategory, renderTag, TAG_COLORS } from './fake/resources.js';
// How the fake emulates Rails (its casts, `to_f`, the apply* steps) is internal: the handlers are
// the surface. Money as the service formats it is useful beside them.
export { formatServiceMoney } from './fake/money.js';

/**
 * MSW handlers that answer `{baseUrl}/api/v1/transactions…` from `store`, like the service: GET index,
 * POST create, GET show, PATCH/PUT update, DELETE; plus finsync's extensions (the reference server
 * has them, Sure does not): POST `…/{id}/restore` and GET `…/deleted`; and the lookup indexes
 * `GET /api/v1/{accounts,categories,merchants,tags}` and `POST /api/v1/tags`. Other routes are left
 * unhandled.
 *
 * ```ts
 * const store = new FakeServiceStore({ apiKeys: [{ key: 'k', scope: 'read_write' }], … });
 * const server = setupServer(...createServiceHandlers(store, { baseUrl: 'http://localhost:3000' }));
 * ```
 */
export function createServiceHandlers(
  store: FakeServiceStore,
  options: FakeServiceOptions = {},
): HttpHandler[] {
  const baseUrl = (options.baseUrl ?? DEFAULT_FAKE_BASE_URL).replace(/\/+$/, '');
  const settings: FakeServiceOptions = { ...options, baseUrl };
  return [http.all(`${baseUrl}/api/v1/*`, ({ request }) => handleServiceRequest(store, request, settings))];
}
