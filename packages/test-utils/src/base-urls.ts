/**
 * Where the tests' fake servers answer. One place, so a suite that mocks the provider and a client
 * that calls it agree on the address.
 */

/** The provider's production base URL, which its client uses by default: MSW answers there in tests. */
export const PROVIDER_BASE_URL = 'https://www.lunchflow.app/api/v1';

/** The service's root in tests. `.test` is a reserved top-level domain: nothing real answers there. */
export const SERVICE_BASE_URL = 'http://service.test';

/** The service's API under that root: the paths the client calls start here. */
export const SERVICE_API_URL = `${SERVICE_BASE_URL}/api/v1`;
