/**
 * The MSW server's lifecycle in a test file, written once: listening before the first test,
 * handlers added by a test reset after it, closed after the last. A request no handler answers
 * fails the test, so no test ever reaches the real network.
 */
import { setupServer, type SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

type Handler = Parameters<typeof setupServer>[number];

/** Runs `server` for the test file that calls this (at its top level) and returns it. */
export function listenDuringTests(server: SetupServer): SetupServer {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/**
 * A new MSW server for the test file that calls this. `handlers` stay across the resets after each
 * test; what a test adds with `server.use(…)` does not.
 */
export function useMswServer(...handlers: Handler[]): SetupServer {
  return listenDuringTests(setupServer(...handlers));
}
