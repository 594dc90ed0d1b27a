/**
 * What `request()`, `listDeleted()` and `toArray()` refuse before anything is sent: a path that
 * would leave /api/v1/ (the key goes with every request), malformed options, a method the client
 * does not send.
 */
import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, ServiceClient, type RawRequestOptions } from '../src/index.js';
import { BASE, KEY, TX_ID, settle } from './helpers.js';

const server = useMswServer();
const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });

/** Every request that reaches the host, whatever its path, with the key it carried. */
let seen: { path: string; key: string | null }[] = [];
beforeEach(() => {
  seen = [];
  server.use(
    http.all(`${BASE}/*`, ({ request }) => {
      seen.push({ path: new URL(request.url).pathname, key: request.headers.get('x-api-key') });
      return HttpResponse.json({ ok: true });
    }),
  );
});

const raw = (options: unknown) => settle(client().request(options as RawRequestOptions));

describe('request() keeps to /api/v1/', () => {
  it.each([
    '../../admin',
    '../admin',
    'transactions/../../../admin',
    '..',
    './..',
    '%2e%2e/%2e%2e/admin',
    '%2E%2e/admin',
    '.%2e/admin',
    '%252e%252e/admin',
    '..%2f..%2fadmin',
    '..\\..\\admin',
    '.\t./admin',
    '//evil.example/x',
    '\\\\evil.example/x',
    'http://evil.example/x',
    'javascript:alert(1)',
    '',
    '/',
  ])('refuses %j with InvalidRequestError, sending nothing', async (path) => {
    const error = (await raw({ method: 'GET', path })) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe('path');
    expect(seen).toEqual([]);
  });

  it('refuses a GET with a body as InvalidRequestError (not a ConnectionError), sending nothing', async () => {
    const error = (await raw({ method: 'get', path: 'tags', body: { name: 'x' } })) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe('body');
    expect(error.message).toBe(
      'refused to send GET: body: a GET carries no body: send the filters in `query`',
    );
    expect(seen).toEqual([]);
  });

  it('still sends paths below /api/v1/, a leading slash allowed', async () => {
    await client().request({ method: 'GET', path: 'categories' });
    await client().request({ method: 'GET', path: '/tags' });
    await client().request({
      method: 'delete',
      path: `transactions/${TX_ID}`,
    } as unknown as RawRequestOptions);
    await client().request({ method: 'GET', path: 'merchants/a.b/..c' });
    expect(seen.map((s) => s.path)).toEqual([
      '/api/v1/categories',
      '/api/v1/tags',
      `/api/v1/transactions/${TX_ID}`,
      '/api/v1/merchants/a.b/..c',
    ]);
    expect(seen.every((s) => s.key === KEY)).toBe(true);
  });

  it('refuses a query written in the path beside `query`, which would replace it without a word', async () => {
    const error = (await raw({
      method: 'GET',
      path: 'transactions?search=coffee',
      query: { page: 2 },
    })) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe('path');
    expect(error.message).toMatch(/must not hold a query \(\?…\) when `query` is given/);
    // Alone, a query in the path is sent as written.
    await client().request({ method: 'GET', path: 'transactions?search=coffee' });
    expect(seen).toHaveLength(1);
  });

  it('does not repeat an over-long path in its message', async () => {
    const path = `transactions/${'x'.repeat(100_000)}`;
    const error = (await raw({ method: 'GET', path })) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(/at most 2,048 characters/);
    expect(JSON.stringify(error).length).toBeLessThan(1_000);
    expect(seen).toEqual([]);
  });

  it('refuses an over-long query without repeating it', async () => {
    const error = (await raw({ method: 'GET', path: 'tags', query: { q: 'y'.repeat(40_000) } })) as Error;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(JSON.stringify(error).length).toBeLessThan(1_000);
    expect(error.message).not.toContain('y'.repeat(200));
    expect(seen).toEqual([]);
  });
});

describe('request() options', () => {
  it.each([
    ['no options', undefined, ''],
    ['null', null, ''],
    ['{} (no method, no path)', {}, 'method'],
    ['no path', { method: 'GET' }, 'path'],
    ['a path that is not a string', { method: 'GET', path: 42 }, 'path'],
    ['TRACE', { method: 'TRACE', path: 'x' }, 'method'],
    ['CONNECT', { method: 'CONNECT', path: 'x' }, 'method'],
    ['a query that is not an object', { method: 'GET', path: 'x', query: 'a=1' }, 'query'],
    ['a query value that is an object', { method: 'GET', path: 'x', query: { a: { b: 1 } } }, 'query'],
  ])('%s → InvalidRequestError naming it, nothing sent', async (_, options, member) => {
    const error = (await raw(options)) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe(member || undefined);
    expect(seen).toEqual([]);
  });

  it('names the method it refuses', async () => {
    const error = (await raw({ method: 'TRACE', path: 'x' })) as InvalidRequestError;
    expect(error.message).toContain('TRACE');
    expect(error.message).toContain('GET, POST, PATCH, PUT, DELETE');
  });
});

describe('ids in paths', () => {
  it.each(['.', '..'])('get(%j) is refused (it would address another resource)', async (id) => {
    const error = (await settle(client().transactions.get(id))) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe('id');
    expect(seen).toEqual([]);
  });
});

describe('listDeleted() and toArray() check their arguments like list()', () => {
  it.each([[null], ['abc'], [42], [[]]])('listDeleted(%j) → InvalidRequestError, nothing sent', (params) => {
    const call = () => client().transactions.listDeleted(params as never);
    expect(call).toThrow(InvalidRequestError);
    expect(call).toThrow(/the parameters must be an object/);
    expect(seen).toEqual([]);
  });

  it('toArray() without options is a TypeError naming limit', async () => {
    const list = client().transactions.list();
    for (const options of [undefined, null, 5]) {
      const error = (await settle(list.toArray(options as never))) as Error;
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/toArray needs options \{ limit \}/);
    }
    const error = (await settle(list.toArray({ limit: -1 }))) as Error;
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/got -1/);
    expect(seen).toEqual([]);
  });
});
