import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { expect, it } from 'vitest';
import { ServerError, ServiceClient } from '../src/index.js';
import { testClientOptions } from '../src/msw.js';
import { BASE, KEY, TX_ID } from './helpers.js';

const server = useMswServer();

it('testClientOptions: a 503 asking for a 30 s wait is an error at once, after one request', async () => {
  let requests = 0;
  server.use(
    http.get(`${BASE}/api/v1/transactions/:id`, () => {
      requests += 1;
      return HttpResponse.json(
        { error: 'x', message: 'busy' },
        { status: 503, headers: { 'Retry-After': '30' } },
      );
    }),
  );
  const client = new ServiceClient({ baseUrl: BASE, apiKey: KEY, ...testClientOptions });
  await expect(client.transactions.get(TX_ID)).rejects.toBeInstanceOf(ServerError);
  expect(requests).toBe(1);
  // The defaults would have waited and asked again: the option is what makes the difference.
  expect(testClientOptions).toEqual({ maxRetries: 0 });
});
