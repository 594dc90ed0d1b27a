import { http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { ConnectionError, ProviderAPIError, ProviderClient } from '../src/index.js';
import { BASE, KEY } from './helpers.js';

const server = useMswServer();
const client = (fetch?: typeof globalThis.fetch) =>
  new ProviderClient({ apiKey: KEY, rateLimit: false, maxRetries: 0, ...(fetch ? { fetch } : {}) });

/** Every place an error can show the key: its fields, JSON, inspect, and each message and stack down its causes. */
function everythingShown(error: Error): string {
  const shown = [JSON.stringify(error), inspect(error, { showHidden: true, depth: 20 })];
  for (let link: unknown = error, depth = 0; link instanceof Error && depth < 20; link = link.cause, depth++)
    shown.push(link.message, link.stack ?? '', ...Object.values(link).map((value) => String(value)));
  return shown.join('\n');
}

describe('a server that echoes the key', () => {
  it.each([400, 401, 403, 404, 429, 500])(
    'in its error code and x-request-id (%i) is masked',
    async (status) => {
      server.use(
        http.get(`${BASE}/accounts`, ({ request }) => {
          const key = request.headers.get('x-api-key');
          return HttpResponse.json(
            { error: `bad key ${key}`, message: `key ${key} refused` },
            { status, headers: { 'x-request-id': `req-${key}` } },
          );
        }),
      );
      const error = (await client()
        .listAccounts()
        .catch((e: unknown) => e)) as ProviderAPIError;
      expect(error).toBeInstanceOf(ProviderAPIError);
      expect(error.code).toBe('bad key [REDACTED]');
      expect(error.requestId).toBe('req-[REDACTED]');
      expect(everythingShown(error)).not.toContain(KEY);
    },
  );
});

describe('a key given with white space at an end', () => {
  it('is sent trimmed (as fetch sends any header) and masked where the server echoes it', async () => {
    server.use(
      http.get(`${BASE}/accounts`, ({ request }) =>
        HttpResponse.json(
          { error: 'Forbidden', message: `Invalid API key: ${request.headers.get('x-api-key')}` },
          { status: 403 },
        ),
      ),
    );
    for (const apiKey of [`${KEY} `, ` ${KEY}`, `\t${KEY}  `]) {
      const error = (await new ProviderClient({ apiKey, rateLimit: false, maxRetries: 0 })
        .listAccounts()
        .catch((e: unknown) => e)) as ProviderAPIError;
      expect(error).toBeInstanceOf(ProviderAPIError);
      expect(error.message).toContain('Invalid API key: [REDACTED]');
      expect(everythingShown(error)).not.toContain(KEY);
    }
  });
});

describe('an option given the key by mistake', () => {
  it('names the option without repeating the key', () => {
    for (const options of [
      { maxRetries: KEY },
      { maxRetryAfterMs: KEY },
      { timeoutMs: KEY },
      { windowDays: KEY },
      { timeZone: KEY },
      { rateLimit: { limit: KEY, intervalMs: 1 } },
      { rateLimit: { limit: 1, intervalMs: KEY } },
    ]) {
      const error = (() => {
        try {
          new ProviderClient({ apiKey: KEY, ...(options as object) });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(error, JSON.stringify(Object.keys(options))).toBeInstanceOf(Error);
      expect(error!.message).toContain('[REDACTED]');
      expect(error!.message).not.toContain(KEY.slice(0, 12));
    }
  });
});

describe('a fetch whose error quotes the key', () => {
  it('drops a cause that quotes it three causes down', async () => {
    const fetch: typeof globalThis.fetch = async (input) => {
      const key = (input as Request).headers.get('x-api-key');
      throw new Error('outer', { cause: new Error('middle', { cause: new Error(`inner ${key}`) }) });
    };
    const error = (await client(fetch)
      .listAccounts()
      .catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe('GET /accounts failed to connect: middle');
    expect(error.cause).toBeUndefined();
    expect(everythingShown(error)).not.toContain(KEY);
  });
});
