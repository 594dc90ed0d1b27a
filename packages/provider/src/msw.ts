// The `@finsync/provider/msw` entry. It imports msw's core only (never 'msw/node'), so the same
// handlers work under setupServer and setupWorker, and msw stays an optional peer dependency.
import { http } from 'msw';
import type { HttpHandler } from 'msw';
import type { SandboxProvider } from './sandbox/provider.js';

export { SandboxProvider } from './sandbox/provider.js';
export type {
  SandboxBalance,
  SandboxOptions,
  SandboxRequestRecord,
  SandboxTransaction,
  TransactionQuery,
} from './sandbox/provider.js';
export type {
  SandboxAccount,
  SandboxAccountProfile,
  SandboxAccountSpec,
  SandboxAccountStatus,
} from './sandbox/accounts.js';
export type { SandboxHolding, SandboxHoldings, SandboxSecurity } from './sandbox/holdings.js';
export type {
  FaultController,
  FaultHandle,
  FaultMatch,
  SandboxEndpoint,
  SandboxFault,
} from './sandbox/faults.js';

/**
 * The real provider's API root, where `createProviderHandlers` answers by default: a client made
 * without `baseUrl` talks to these handlers.
 */
export const LUNCH_FLOW_BASE_URL = 'https://www.lunchflow.app/api/v1';

/**
 * `ProviderClient` options for tests against these handlers (or the sandbox server): the client-side
 * throttle off, so a test is not held to the real provider's 90 calls per minute (the 91st call of a
 * client would otherwise wait a minute), and no retries, so an injected fault fails the call at once
 * instead of after seconds of backoff.
 *
 * ```ts
 * new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions });
 * new SyncEngine({ storage, clientOptions: testClientOptions }); // @finsync/sync
 * new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions, maxRetries: 2 }); // testing retries
 * ```
 */
export const testClientOptions: {
  /** No client-side throttle. */
  readonly rateLimit: false;
  /** No retries: 0. */
  readonly maxRetries: number;
} = Object.freeze({
  rateLimit: false,
  maxRetries: 0,
});
/**
 * The provider's API root on its bare host, which answers every request with a 308 to
 * `LUNCH_FLOW_BASE_URL`; where `createBareHostRedirectHandlers` answers by default.
 */
export const LUNCH_FLOW_BARE_BASE_URL = 'https://lunchflow.app/api/v1';

/** Options of `createProviderHandlers`. */
export interface ProviderHandlersOptions {
  /** Default 'https://www.lunchflow.app/api/v1'. */
  baseUrl?: string | undefined;
}

/** Options of `createBareHostRedirectHandlers`: which API root redirects, and to where. */
export interface BareHostRedirectOptions {
  /** Default 'https://lunchflow.app/api/v1'. */
  from?: string | undefined;
  /** Default 'https://www.lunchflow.app/api/v1'. */
  to?: string | undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Every request under `baseUrl` is answered by `provider.handle` (faults and auth included). */
export function createProviderHandlers(
  provider: SandboxProvider,
  { baseUrl = LUNCH_FLOW_BASE_URL }: ProviderHandlersOptions = {},
): HttpHandler[] {
  return [http.all(`${trimSlash(baseUrl)}/*`, ({ request }) => provider.handle(request))];
}

/**
 * The bare host answers with a 308 to the www host, keeping path and query, like the real one.
 * Clients that refuse redirects see a failure here, which is the point.
 */
export function createBareHostRedirectHandlers({
  from = LUNCH_FLOW_BARE_BASE_URL,
  to = LUNCH_FLOW_BASE_URL,
}: BareHostRedirectOptions = {}): HttpHandler[] {
  const source = trimSlash(from);
  const target = trimSlash(to);
  const sourcePath = new URL(source).pathname;
  const redirect = ({ request }: { request: Request }): Response => {
    const url = new URL(request.url);
    const rest = url.pathname.slice(sourcePath.length);
    const location = `${target}${rest}${url.search}`;
    return new Response(JSON.stringify({ redirect: location, status: 308 }), {
      status: 308,
      headers: { location, 'content-type': 'application/json; charset=utf-8' },
    });
  };
  return [http.all(source, redirect), http.all(`${source}/*`, redirect)];
}
