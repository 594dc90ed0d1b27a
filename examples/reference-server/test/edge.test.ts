/**
 * The HTTP edge: routing before auth, bounded bodies and members, request ids and the access log,
 * the per-key rate limit, the request timeout, and one-line start-up failures.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX, StartupError, startReferenceServer } from '../src/server.js';
import { createUser } from '../src/users.js';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { createApp } from '../src/app.js';
import { AnsweredAsTimedOut } from '../src/http/deadline.js';
import type { AppEnv } from '../src/http/env.js';
import { requestTimeout } from '../src/http/middleware/edge.js';
import { BACKENDS, holdUnitOfWork, startTestServer, testDatabase, type TestServer } from './helpers.js';

const MiB = 1024 * 1024;

/**
 * A request through node:http, which hands back the response the server sends early (a 413 before
 * the body is read) even when the server then stops reading; fetch reports that as a network error.
 */
function rawRequest(
  base: string,
  method: string,
  path: string,
  key: string,
  chunks: Buffer[],
  length?: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'X-Api-Key': key, 'content-type': 'application/json' };
    if (length !== undefined) headers['content-length'] = length;
    const request = httpRequest(new URL(path, base), { method, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', (error) => (request.writableEnded ? undefined : reject(error)));
    // The server may stop reading once it has answered: later writes failing is expected.
    for (const chunk of chunks) if (!request.destroyed) request.write(chunk, () => undefined);
    request.end();
  });
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`the HTTP edge ${backend.title}`, () => {
    let t: TestServer;
    let txId: string;
    const lines: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      t = await startTestServer(
        backend,
        {},
        {
          logger: { info: (msg, fields) => lines.push({ msg, ...fields }) },
        },
      );
      txId = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body.transactions[0]
        .id;
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = async () => (await t.request(t.keys.alice, 'GET', `/api/v1/transactions/${txId}`)).body;

    it('answers an unknown route 404 whatever the key: routing comes before auth', async () => {
      for (const key of [undefined, 'not-a-key', t.keys.alice]) {
        const response = await t.request(key, 'GET', '/api/v1/nonsense');
        expect(response.status, `key ${key?.slice(0, 4)}`).toBe(404);
        expect(response.body).toMatchObject({ error: 'not_found' });
      }
      expect((await t.request(undefined, 'GET', '/api/v1/transactions')).status).toBe(401);
    });

    it('refuses a body over 1 MiB with 413, with or without a Content-Length, and changes nothing', async () => {
      const before = await get();
      const path = `/api/v1/transactions/${txId}`;
      const big = Buffer.from(JSON.stringify({ transaction: { notes: 'x'.repeat(MiB + 10) } }));
      const sized = await rawRequest(t.server.url, 'PATCH', path, t.keys.alice, [big], big.length);
      expect(sized.status).toBe(413);
      expect(JSON.parse(sized.body)).toMatchObject({
        error: 'payload_too_large',
        request_id: expect.any(String),
      });
      // Chunked: no length up front, so the limit must hold while the body streams in.
      const chunks = [
        Buffer.from('{"transaction":{"notes":"'),
        ...Array.from({ length: 9 }, () => Buffer.alloc(256 * 1024, 120)),
        Buffer.from('"}}'),
      ];
      const streamed = await rawRequest(t.server.url, 'PATCH', path, t.keys.alice, chunks);
      expect(streamed.status).toBe(413);
      expect(await get()).toEqual(before);
    });

    it('refuses a member over its length with a 422 naming it, and changes nothing', async () => {
      const before = await get();
      for (const [member, length, message] of [
        ['name', 501, 'Name is too long (maximum is 500 characters)'],
        ['notes', 10_001, 'Notes is too long (maximum is 10000 characters)'],
      ] as const) {
        const response = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${txId}`, {
          transaction: { [member]: 'x'.repeat(length) },
        });
        expect(response.status).toBe(422);
        expect(response.body).toMatchObject({ error: 'validation_failed', errors: [message] });
      }
      const tooManyTags = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${txId}`, {
        transaction: { tag_ids: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      });
      expect(tooManyTags.status).toBe(422);
      expect(await get()).toEqual(before);
    });

    it('answers bad query parameters 400: NUL characters, huge pages, too many ids', async () => {
      for (const query of [
        'search=%00',
        'search=a%00b',
        'page=99999999999',
        'per_page=abc',
        `account_ids[]=${Array.from({ length: 101 }, (_, i) => `a${i}`).join('&account_ids[]=')}`,
        // Within the bound under each spelling, past it together.
        `tag_ids[]=${Array.from({ length: 60 }, (_, i) => `a${i}`).join('&tag_ids[]=')}&tag_ids=${Array.from({ length: 60 }, (_, i) => `b${i}`).join('&tag_ids=')}`,
        'start_date=yesterday',
      ]) {
        const response = await t.request(t.keys.alice, 'GET', `/api/v1/transactions?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error).toBe('bad_request');
      }
    });

    it('reads page and per_page as the service does: page 0 is page 1, a per_page outside 1–100 is 25', async () => {
      for (const [query, page, perPage] of [
        ['per_page=0', 1, 25],
        ['per_page=101', 1, 25],
        ['per_page=500&page=0', 1, 25],
        ['per_page=3&page=0', 1, 3],
        // Any whole number, as Ruby's to_i reads it: a sign, more digits than an int holds.
        ['per_page=-1&page=-1', 1, 25],
        ['per_page=+5', 1, 5],
        ['per_page=%2B5', 1, 5],
        ['per_page=10000000000', 1, 25],
      ] as const) {
        for (const path of ['/api/v1/transactions', '/api/v1/transactions/deleted']) {
          const response = await t.request(t.keys.alice, 'GET', `${path}?${query}`);
          expect(response.status, `${path}?${query}`).toBe(200);
          expect(response.body.pagination, `${path}?${query}`).toMatchObject({ page, per_page: perPage });
        }
      }
      const many = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=500');
      expect(many.body.transactions.length).toBe(Math.min(25, many.body.pagination.total_count));
    });

    it('refuses a body nested deeper than any write with a 400 on every write route, not a 500', async () => {
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      for (const [method, path] of [
        ['POST', '/api/v1/transactions'],
        ['PUT', '/api/v1/provider'],
        ['POST', '/api/v1/tags'],
      ] as const) {
        const response = await fetch(`${t.server.url}${path}`, {
          method,
          headers: { 'x-api-key': t.keys.alice, 'content-type': 'application/json' },
          body: `{"x":${deep}}`,
        });
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { message: string }).message).toMatch(/nests more than 32 levels/);
      }
    });

    it('refuses a body that is not UTF-8 with a 400 on every write route, and stores nothing', async () => {
      const before = await get();
      const tagsBefore = (await t.request(t.keys.alice, 'GET', '/api/v1/tags')).body;
      const rowsBefore = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body
        .pagination.total_count;
      // `"bad \xff\xfe bytes"`: JSON in every other way, but those two bytes are no UTF-8.
      const withBadBytes = (json: string) =>
        Buffer.concat(
          json
            .split('BAD')
            .flatMap((part, i) =>
              i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff, 0xfe]), Buffer.from(part)],
            ),
        );
      for (const [method, path, json] of [
        ['PATCH', `/api/v1/transactions/${txId}`, '{"transaction":{"notes":"bad BAD bytes"}}'],
        ['PUT', `/api/v1/transactions/${txId}`, '{"transaction":{"name":"bad BAD bytes"}}'],
        [
          'POST',
          '/api/v1/transactions',
          `{"transaction":{"account_id":"${before.account.id}","date":"2026-01-02","amount":"1","name":"bad BAD bytes"}}`,
        ],
        ['POST', '/api/v1/tags', '{"tag":{"name":"bad BAD bytes"}}'],
      ] as const) {
        const response = await fetch(`${t.server.url}${path}`, {
          method,
          headers: { 'x-api-key': t.keys.alice, 'content-type': 'application/json' },
          body: withBadBytes(json),
        });
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(((await response.json()) as { message: string }).message).toBe(
          'Request body is not valid UTF-8',
        );
      }
      expect(await get()).toEqual(before);
      expect((await t.request(t.keys.alice, 'GET', '/api/v1/tags')).body).toEqual(tagsBefore);
      expect(
        (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body.pagination.total_count,
      ).toBe(rowsBefore);
      // A byte order mark is still taken, as before.
      const withBom = await fetch(`${t.server.url}/api/v1/transactions/${txId}`, {
        method: 'PATCH',
        headers: { 'x-api-key': t.keys.alice, 'content-type': 'application/json' },
        body: Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from(`{"transaction":{"notes":${JSON.stringify(before.notes)}}}`),
        ]),
      });
      expect(withBom.status).toBe(200);
    });

    it('serves only the docs assets it lists: a name every object has is not one of them', async () => {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
        expect((await fetch(`${t.server.url}/docs/assets/${name}`)).status, name).toBe(404);
      expect((await fetch(`${t.server.url}/docs/assets/swagger-ui.css`)).status).toBe(200);
    });

    it('refuses a provider key no HTTP header can carry with a 422, never echoing it', async () => {
      const response = await t.request(t.keys.alice, 'PUT', '/api/v1/provider', {
        api_key: 'live-SECRET-provider-key\nx',
        base_url: 'sandbox',
      });
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).not.toContain('SECRET');
    });

    it('gives every request an id, echoes a sane one, and logs one line per request without keys', async () => {
      const mine = 'trace-1234-abcd';
      const response = await fetch(
        `${t.server.url}/api/v1/transactions/00000000-0000-0000-0000-000000000000`,
        {
          headers: { 'X-Api-Key': t.keys.alice, 'X-Request-Id': mine },
        },
      );
      expect(response.headers.get('x-request-id')).toBe(mine);
      expect(await response.json()).toMatchObject({ error: 'not_found', request_id: mine });
      const fresh = await fetch(`${t.server.url}/health`);
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      await new Promise((r) => setTimeout(r, 20));
      const line = lines.find((l) => l.msg === 'request' && l.request_id === mine);
      expect(line).toMatchObject({
        method: 'GET',
        status: 404,
        path: expect.stringMatching(/^\/api\/v1\/transactions\//),
      });
      expect(typeof line!.duration_ms).toBe('number');
      const everything = JSON.stringify(lines);
      for (const key of Object.values(t.keys)) expect(everything).not.toContain(key);
    });

    it('says there is no limit (as a self-hosted service) when no rate limit is set', async () => {
      const response = await fetch(`${t.server.url}/api/v1/tags`, { headers: { 'X-Api-Key': t.keys.alice } });
      expect(response.headers.get('x-ratelimit-limit')).toBe('Infinity');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('Infinity');
    });
  });
}

/** 2026-11-30T12:17:31.250Z: a time 42 min 28.75 s before the end of its UTC hour. */
const PINNED_NOW = Date.UTC(2026, 10, 30, 12, 17, 31, 250);

describe.skipIf(BACKENDS[0]!.skip)('the per-key rate limit', () => {
  let t: TestServer;
  beforeAll(async () => {
    // A clock pinned mid-hour: the counters would start again if the test crossed the hour's end.
    t = await startTestServer(BACKENDS[0]!, {}, { http: { rateLimit: { limit: 3, now: () => PINNED_NOW } } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts per key, answers 429 with Retry-After when used up, and never counts a 401', async () => {
    const call = (key?: string) =>
      fetch(`${t.server.url}/api/v1/tags`, { headers: key ? { 'X-Api-Key': key } : {} });
    for (let i = 0; i < 5; i += 1) expect((await call()).status).toBe(401);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await call(t.keys.alice);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    // The window is the UTC hour, as the service's buckets: the reset is the seconds to its end.
    const toNextHour = Math.ceil((3_600_000 - (PINNED_NOW % 3_600_000)) / 1000);
    const reset = Number((await call(t.keys.bob)).headers.get('x-ratelimit-reset'));
    expect(reset).toBe(toNextHour);
    const limited = await call(t.keys.alice);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({
      error: 'rate_limit_exceeded',
      details: { limit: 3, reset_in_seconds: expect.any(Number) },
    });
    expect((await call(t.keys.bob)).headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it("counts the page's requests against the key they were signed in with", async () => {
    const key = t.keys.aliceReadOnly;
    const signedIn = await fetch(`${t.server.url}/ui/session`, {
      method: 'POST',
      headers: { 'X-Finsync-UI': '1', 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const overview = () => fetch(`${t.server.url}/ui/api/overview`, { headers: { cookie } });
    for (let i = 0; i < 3; i += 1) expect((await overview()).status).toBe(200);
    expect((await overview()).status).toBe(429);
    // The same key through the API is used up too.
    expect((await fetch(`${t.server.url}/api/v1/tags`, { headers: { 'X-Api-Key': key } })).status).toBe(429);
  });
});

describe('start-up failures', () => {
  it('a port in use is one clear StartupError, and nothing is left open', async () => {
    const first = testDatabase(BACKENDS[0]!);
    const second = testDatabase(BACKENDS[0]!);
    const running = await startReferenceServer({ dataDir: first.dataDir, port: 0, scheduler: false });
    try {
      const port = Number(new URL(running.url).port);
      await expect(startReferenceServer({ dataDir: second.dataDir, port, scheduler: false })).rejects.toThrow(
        new StartupError(`port ${port} on 127.0.0.1 is already in use (set PORT to another one)`),
      );
    } finally {
      await running.close({ graceMs: 0 });
      await first.cleanup();
      await second.cleanup();
    }
  });

  it('a data directory that cannot be made names it and FINSYNC_DATA_DIR, not a bare EEXIST', async () => {
    const db = testDatabase(BACKENDS[0]!);
    try {
      const file = join(db.dataDir, 'a-file');
      writeFileSync(file, '');
      for (const dataDir of [file, join(file, 'below')])
        await expect(startReferenceServer({ dataDir, port: 0, scheduler: false })).rejects.toThrow(
          `the data directory ${dataDir} (FINSYNC_DATA_DIR) cannot be made: it, or a directory above it, is a file`,
        );
    } finally {
      await db.cleanup();
    }
  });
});

describe.skipIf(BACKENDS[0]!.skip)('the request timeout', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(BACKENDS[0]!, {}, { http: { requestTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a request still running after it 503 with Retry-After, and the server goes on', async () => {
    // A provider slow to list accounts holds a waiting sync past the timeout.
    const slow = t.server.runtime.sandbox!.faults.add({
      kind: 'latency',
      ms: 1_500,
      match: { endpoint: 'accounts' },
    });
    try {
      const started = performance.now();
      const response = await fetch(`${t.server.url}/api/v1/sync?wait=true`, {
        method: 'POST',
        headers: { 'X-Api-Key': t.keys.alice },
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toMatchObject({
        error: 'service_unavailable',
        message: expect.stringMatching(/took too long/),
      });
      expect(performance.now() - started).toBeLessThan(1_400);
    } finally {
      slow.remove();
    }
    expect((await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).status).toBe(200);
  });
});

describe('the request timeout and a write', () => {
  /** An app with the server's request timeout and a write route that takes `ms`, committing when told. */
  function appWithSlowWrite(ms: number, commitAt: 'start' | 'end') {
    const app = new Hono<AppEnv>();
    const committed: string[] = [];
    app.use(
      '*',
      requestTimeout(50, () => new HTTPException(503, { message: 'too long' })),
    );
    app.post('/write', async (c) => {
      const deadline = c.get('deadline');
      if (commitAt === 'start') deadline.beginCommit();
      await new Promise((resolve) => setTimeout(resolve, ms));
      try {
        if (commitAt === 'end') deadline.beginCommit();
      } catch (error) {
        expect(error).toBeInstanceOf(AnsweredAsTimedOut);
        return c.text('rolled back', 500);
      }
      committed.push('written');
      return c.text('written', 200);
    });
    app.onError((error, c) => c.text(error.message, error instanceof HTTPException ? error.status : 500));
    return { app, committed };
  }

  it('a write still waiting when the time is up is answered 503 and does not commit', async () => {
    const { app, committed } = appWithSlowWrite(150, 'end');
    const response = await app.request('/write', { method: 'POST' });
    expect(response.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(committed).toEqual([]);
  });

  it('a write that began to commit before the time was up is answered with its result, not 503', async () => {
    const { app, committed } = appWithSlowWrite(150, 'start');
    const response = await app.request('/write', { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('written');
    expect(committed).toEqual(['written']);
  });
});

// On SQLite, where a unit of work holding the connection makes the create wait. (PostgreSQL's units
// take the same deadline: direct-update.test.ts holds a row lock there past a PATCH's timeout.)
{
  const backend = BACKENDS[0]!;
  describe.skipIf(backend.skip)(`a create answered 503 by the request timeout ${backend.title}`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(backend);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('creates nothing (no transaction, no tag) once it is let through', async () => {
      const { store } = t.server.runtime;
      const list = async () =>
        (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body.pagination.total_count;
      const accounts = (await t.request(t.keys.alice, 'GET', '/api/v1/accounts')).body.accounts;
      // Through the app itself: over HTTP a request answered before its body was read never reads it,
      // so this is the case of a body read in time and a write that then waits.
      const app = createApp(t.server.runtime, { requestTimeoutMs: 200 });
      const create = (name: string) =>
        app.fetch(
          new Request('http://localhost/api/v1/transactions', {
            method: 'POST',
            headers: { 'X-Api-Key': t.keys.alice, 'content-type': 'application/json' },
            body: JSON.stringify({
              transaction: { account_id: accounts[0].id, date: '2026-01-05', amount: '3.50', name },
            }),
          }),
        );
      const createTag = (name: string) =>
        app.fetch(
          new Request('http://localhost/api/v1/tags', {
            method: 'POST',
            headers: { 'X-Api-Key': t.keys.alice, 'content-type': 'application/json' },
            body: JSON.stringify({ tag: { name } }),
          }),
        );
      const tagNames = async () =>
        ((await t.request(t.keys.alice, 'GET', '/api/v1/tags')).body as Array<{ name: string }>).map(
          (tag) => tag.name,
        );
      // The same creates, let through at once, create a row and a tag.
      expect((await create('On time')).status).toBe(201);
      expect((await createTag('On time')).status).toBe(201);
      const before = await list();
      // A unit of work that holds the connection, as a long feed batch would.
      const holder = await holdUnitOfWork(store);
      try {
        const [response, tagResponse] = await Promise.all([create('Late'), createTag('Late')]);
        expect(response.status).toBe(503);
        expect(tagResponse.status).toBe(503);
      } finally {
        await holder.release();
      }
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await list()).toBe(before);
        expect(await tagNames()).not.toContain('Late');
      }
    });
  });
}

describe.skipIf(BACKENDS[0]!.skip)('a request answered 503 before its body was read', () => {
  it('goes on without an error in the log: what fails after the 503 is nobody’s answer', async () => {
    const errors: Array<Record<string, unknown>> = [];
    const t = await startTestServer(
      BACKENDS[0]!,
      {},
      {
        http: { requestTimeoutMs: 200 },
        logger: { error: (msg, fields) => errors.push({ msg, ...fields }) },
      },
    );
    try {
      const holder = await holdUnitOfWork(t.server.runtime.store);
      try {
        const response = await fetch(`${t.server.url}/api/v1/tags`, {
          method: 'POST',
          headers: { 'X-Api-Key': t.keys.alice, 'content-type': 'application/json' },
          body: JSON.stringify({ tag: { name: 'Unread' } }),
        });
        expect(response.status).toBe(503);
      } finally {
        await holder.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(BACKENDS[0]!.skip)('SQLite under another process’s write lock', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(BACKENDS[0]!);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads answer at once; a write that cannot get the lock is a 503 with Retry-After, not a 500', async () => {
    const other = new Database(join(t.dataDir, 'finsync.db'), { timeout: 0 });
    try {
      other.exec('BEGIN IMMEDIATE'); // what a CLI or a second server mid-commit holds
      const started = performance.now();
      const read = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=5');
      expect(read.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1_000);
      const id = read.body.transactions[0].id;
      const write = await fetch(`${t.server.url}/api/v1/transactions/${id}`, {
        method: 'PATCH',
        headers: { 'X-Api-Key': t.keys.alice, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction: { notes: 'while locked' } }),
      });
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('1');
      expect(await write.json()).toMatchObject({ error: 'database_busy' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 20_000);
});

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`the last sync ${backend.title}`, () => {
    it('survives a restart', async () => {
      const db = testDatabase(backend);
      const open = () =>
        startReferenceServer({ dataDir: db.dataDir, database: db.database, port: 0, scheduler: false });
      let server = await open();
      try {
        const user = await createUser(server.runtime.store, 'carol');
        await server.runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
        const summary = await server.runtime.syncUser(user.id);
        await server.close({ graceMs: 0 });
        server = await open();
        expect((await server.runtime.status(user.id)).last_sync).toEqual(summary);
      } finally {
        await server.close({ graceMs: 0 });
        await db.cleanup();
      }
    });
  });
}
