import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** One MSW server per test file; any request without a handler fails the test (no real network). */
export function useMswServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export const BASE = 'https://www.lunchflow.app/api/v1';
export const KEY = 'lf_test_key_7c1b9e0d2a';
