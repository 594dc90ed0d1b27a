/**
 * The PATCH answered outside Hono (src/http/direct-update.ts) answers every request exactly as the
 * app does — status, headers, body and access-log line — and takes the ordinary ones itself.
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { directTransactionUpdate } from '../src/http/direct-update.js';
import type { SqliteAppStore } from '../src/store/sqlite.js';
import { createApiKey, revokeApiKeys } from '../src/users.js';
import { BACKENDS, holdUnitOfWork, startTestServer, type TestServer } from './helpers.js';

interface Sent {
  method?: string;
  path?: string;
  key?: string | null;
  contentType?: string;
  body?: unknown;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The body as sent. */
  text: string;
}

/** Headers a user can see, without the ones the HTTP layer adds (date, framing). */
function visibleHeaders(headers: Headers): Record<string, string> {
  const seen: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name))
      seen[name] = value;
  });
  return seen;
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`PATCH answered outside the app ${backend.title}`, () => {
    let t: TestServer;
    let direct: Server;
    let directUrl: string;
    let app: ReturnType<typeof createApp>;
    /** Requests the direct path handed to the app. */
    let handedOver = 0;
    const lines: Array<Record<string, unknown>> = [];
    let txId: string;
    let bobTxId: string;
    /** A transaction whose answer is ASCII through and through (sent as Latin-1, byte for character). */
    let asciiTxId: string;
    let categoryId: string;
    let tagId: string;
    let requestNumber = 0;

    beforeAll(async () => {
      t = await startTestServer(
        backend,
        {},
        { logger: { info: (msg, fields) => lines.push({ msg, ...fields }) } },
      );
      const { runtime } = t.server;
      app = createApp(runtime, { maxBodyBytes: 4096, requestTimeoutMs: 150 });
      const appListener = getRequestListener(app.fetch);
      direct = createServer(
        directTransactionUpdate(
          runtime,
          { maxBodyBytes: 4096, requestTimeoutMs: 150, rateLimited: false },
          (req, res) => {
            handedOver++;
            return appListener(req, res);
          },
        ),
      );
      await new Promise<void>((resolve) => direct.listen(0, '127.0.0.1', resolve));
      directUrl = `http://127.0.0.1:${(direct.address() as AddressInfo).port}`;
      const list = async (key: string) =>
        (await t.request(key, 'GET', '/api/v1/transactions?per_page=50')).body.transactions as Array<{
          id: string;
          currency: string;
        }>;
      txId = (await list(t.keys.alice)).find((x) => x.currency === 'GBP')!.id;
      asciiTxId = (await list(t.keys.alice)).find((x) => x.currency === 'USD')!.id;
      bobTxId = (await list(t.keys.bob))[0]!.id;
      categoryId = (await t.request(t.keys.alice, 'GET', '/api/v1/categories')).body.categories[0].id;
      tagId = (await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name: 'Direct' } })).body.id;
    });

    afterAll(async () => {
      await new Promise((resolve) => direct?.close(resolve));
      await t?.close();
    });

    function requestInit(sent: Sent, requestId: string): RequestInit {
      const headers: Record<string, string> = { 'X-Request-Id': requestId };
      if (sent.key !== null) headers['X-Api-Key'] = sent.key ?? t.keys.alice;
      if (sent.contentType !== undefined || sent.body !== undefined)
        headers['content-type'] = sent.contentType ?? 'application/json';
      return {
        method: sent.method ?? 'PATCH',
        headers,
        ...(sent.body === undefined
          ? {}
          : { body: typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body) }),
      };
    }

    async function read(response: Response): Promise<Answer> {
      const text = await response.text();
      return {
        status: response.status,
        headers: visibleHeaders(response.headers),
        body: text && JSON.parse(text),
        text,
      };
    }

    /** The same request through the direct path and through the app alone, with their log lines. */
    async function both(sent: Sent) {
      const path = sent.path ?? `/api/v1/transactions/${txId}`;
      const id = `compare-${++requestNumber}`;
      const handedBefore = handedOver;
      const viaDirect = await read(await fetch(`${directUrl}${path}`, requestInit(sent, id)));
      const handed = handedOver > handedBefore;
      // As on the wire, where the app's body limit reads the length from the header.
      const init = requestInit(sent, `${id}-app`);
      if (typeof init.body === 'string')
        (init.headers as Record<string, string>)['content-length'] = String(Buffer.byteLength(init.body));
      const viaApp = await read(await app.fetch(new Request(`http://localhost${path}`, init)));
      const line = (requestId: string) => {
        const found = lines.find((l) => l.request_id === requestId);
        if (!found) return undefined;
        const { duration_ms, request_id, ...rest } = found;
        expect(duration_ms).toEqual(expect.any(Number));
        return rest;
      };
      // The two carry their own request ids; everything else must be the same.
      // The two write one after the other, so a row they both change may be stamped a second apart.
      const stamped = (answer: Answer) => (answer.body as { updated_at?: string } | null)?.updated_at;
      const [directStamp, appStamp] = [stamped(viaDirect), stamped(viaApp)];
      if (directStamp !== undefined && appStamp !== undefined)
        expect(Math.abs(Date.parse(appStamp) - Date.parse(directStamp))).toBeLessThanOrEqual(2_000);
      const withoutId = (answer: Answer) => {
        const { 'x-request-id': requestId, ...headers } = answer.headers;
        let body =
          answer.body && typeof answer.body === 'object' && 'request_id' in answer.body
            ? { ...(answer.body as object), request_id: requestId }
            : answer.body;
        if (stamped(answer) !== undefined) body = { ...(body as object), updated_at: 'a time' };
        return { status: answer.status, headers, body };
      };
      expect(viaDirect.headers['x-request-id']).toBe(id);
      const expected = withoutId(viaApp);
      const expectedBody =
        expected.body && typeof expected.body === 'object' && 'request_id' in expected.body
          ? { ...(expected.body as object), request_id: id }
          : expected.body;
      expect(withoutId(viaDirect)).toEqual({ ...expected, body: expectedBody });
      // Key for key in the same order, and in JSON.stringify's own text (`toEqual` sees neither).
      expect(JSON.stringify(withoutId(viaDirect).body)).toBe(JSON.stringify(expectedBody));
      if (viaDirect.text) expect(viaDirect.text).toBe(JSON.stringify(viaDirect.body));
      expect(line(id)).toEqual(line(`${id}-app`));
      expect(line(id)).toBeDefined();
      return { answer: viaDirect, handed };
    }

    const answeredDirectly: Array<[string, Sent]> = [
      ['a new note', { body: { transaction: { notes: 'first' } } }],
      [
        'a dollar amount and ASCII names (an answer in ASCII)',
        { path: 'ascii', body: { transaction: { notes: 'plain' } } },
      ],
      [
        'a note JSON escapes (quotes, a backslash, a line break, an emoji)',
        { body: { transaction: { notes: 'say "hi" \\ to\nthem 😀' } } },
      ],
      ['the same note again (nothing changes)', { body: { transaction: { notes: 'first' } } }],
      ['an amount with a nature', { body: { transaction: { amount: '7.5', nature: 'income' } } }],
      ['a name through description', { body: { transaction: { description: '  Renamed  ' } } }],
      ['a date, a category and tags', { body: { transaction: { date: '2026-01-02', tag_ids: [] } } }],
      ['a PUT', { method: 'PUT', body: { transaction: { notes: 'put' } } }],
      [
        'a charset parameter',
        { contentType: 'application/json; charset=UTF-8', body: { transaction: { notes: 'cs' } } },
      ],
      ['unknown members, ignored', { body: { transaction: { notes: 'n', colour: 'red' }, extra: 1 } }],
      [
        'an unknown transaction',
        {
          path: '/api/v1/transactions/00000000-0000-4000-8000-000000000000',
          body: { transaction: { notes: 'x' } },
        },
      ],
      ["another user's transaction", { path: '', body: { transaction: { notes: 'x' } } }],
      ['the .json suffix (logged without it)', { path: '.json', body: { transaction: { notes: 'j' } } }],
      [
        'an unknown category',
        { body: { transaction: { category_id: '00000000-0000-4000-8000-000000000001' } } },
      ],
      [
        'a date too old and an amount too precise',
        { body: { transaction: { date: '1990-01-01', amount: '1.234' } } },
      ],
    ];

    it.each(answeredDirectly)('%s: answered directly, as the app answers it', async (_, sent) => {
      const request =
        sent.path === ''
          ? { ...sent, path: `/api/v1/transactions/${bobTxId}` }
          : sent.path === '.json'
            ? { ...sent, path: `/api/v1/transactions/${txId}.json` }
            : sent.path === 'ascii'
              ? { ...sent, path: `/api/v1/transactions/${asciiTxId}` }
              : sent;
      const { handed, answer } = await both(request);
      expect(handed).toBe(false);
      if (sent.path === 'ascii') expect(answer.text).toMatch(/^[\x20-\x7e]+$/);
      if (sent.path === undefined && answer.status === 200) expect(answer.text).toMatch(/[^\x00-\x7f]/);
    });

    it('a category and a tag: answered directly, and a GET shows what the PATCH answered', async () => {
      const sent: Sent = { body: { transaction: { category_id: categoryId, tag_ids: [tagId] } } };
      const { handed } = await both(sent);
      expect(handed).toBe(false);
      // `both` writes through the app last, maybe a second later: the direct path writes once more,
      // so the GET is compared with the answer of the write it follows.
      const path = `/api/v1/transactions/${txId}`;
      const answer = await read(await fetch(`${directUrl}${path}`, requestInit(sent, 'direct-again')));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ category: { id: categoryId }, tags: [{ id: tagId }] });
      expect((await t.request(t.keys.alice, 'GET', path)).body).toEqual(answer.body);
    });

    const answeredByTheApp: Array<[string, Sent, number]> = [
      ['malformed JSON', { body: '{"transaction": ' }, 400],
      ['no transaction member', { body: { notes: 'x' } }, 400],
      ['a member of the wrong type', { body: { transaction: { notes: 5 } } }, 422],
      ['text that is not valid Unicode', { body: '{"transaction":{"notes":"\\ud800"}}' }, 422],
      ['no key', { key: null, body: { transaction: { notes: 'x' } } }, 401],
      ['a wrong key', { key: 'not-a-key', body: { transaction: { notes: 'x' } } }, 401],
      ['a read-only key', { key: 'READ_ONLY', body: { transaction: { notes: 'x' } } }, 403],
      ['a query string', { path: 'QUERY', body: { transaction: { notes: 'q' } } }, 200],
      ['a body that is not JSON', { contentType: 'text/plain', body: 'notes' }, 415],
      [
        'an id that is not a UUID',
        { path: '/api/v1/transactions/42', body: { transaction: { notes: 'x' } } },
        404,
      ],
      ['a body over the limit', { body: { transaction: { notes: 'x'.repeat(5000) } } }, 413],
    ];

    it.each(answeredByTheApp)('%s: answered by the app', async (_, sent, status) => {
      const request = {
        ...sent,
        key: sent.key === 'READ_ONLY' ? t.keys.aliceReadOnly : sent.key,
        path: sent.path === 'QUERY' ? `/api/v1/transactions/${txId}?x=1` : sent.path,
      };
      const before = handedOver;
      const { answer } = await both(request);
      expect(answer.status).toBe(status);
      // Refused on its headers (the app's own listener) or handed over with its body: either way the app's answer.
      if (
        ![
          'no key',
          'a query string',
          'a body that is not JSON',
          'an id that is not a UUID',
          'a body over the limit',
        ].includes(_)
      )
        expect(handedOver).toBe(before + 1);
    });

    /** A PATCH of the notes sent on `agent`'s kept-alive connection: its status, the notes answered, its socket. */
    const patchOnAgent = (agent: Agent, key: string, id: string, notes: string) =>
      new Promise<{ status: number; notes: unknown; socket: unknown }>((resolve, reject) => {
        const request = httpRequest(`${directUrl}/api/v1/transactions/${id}`, {
          method: 'PATCH',
          agent,
          headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
        });
        request.on('error', reject);
        request.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, notes: JSON.parse(text).notes, socket: request.socket }),
          );
        });
        request.end(JSON.stringify({ transaction: { notes } }));
      });

    const notesNow = async () =>
      (await t.request(t.keys.alice, 'GET', `/api/v1/transactions/${txId}`)).body.notes as string | null;

    it.runIf(backend.kind === 'sqlite')(
      'a remembered key whose update fails before checking it (a busy database) is answered by the app',
      async () => {
        const database = (t.server.runtime.store as SqliteAppStore).database;
        // Another process holds the write lock: the update cannot begin, so the key goes unchecked.
        const other = new Database(database.name);
        other.exec('BEGIN IMMEDIATE');
        database.pragma('busy_timeout = 20');
        try {
          const { answer, handed } = await both({ body: { transaction: { notes: 'busy' } } });
          expect(handed).toBe(true);
          expect(answer).toMatchObject({ status: 503, body: { error: 'database_busy' } });
        } finally {
          database.pragma('busy_timeout = 5000');
          other.exec('ROLLBACK');
          other.close();
        }
      },
    );

    it('a key revoked after it was used is refused on its next PATCH, by the app, and nothing is written', async () => {
      const { store } = t.server.runtime;
      const { key } = await createApiKey(store, t.users.alice, { name: 'revoked-later' });
      const patch = async (notes: string) => {
        const before = handedOver;
        const answer = await read(
          await fetch(
            `${directUrl}/api/v1/transactions/${txId}`,
            requestInit({ key, body: { transaction: { notes } } }, `revoke-${notes}`),
          ),
        );
        return { answer, handed: handedOver > before };
      };
      expect(await patch('by-new-key')).toMatchObject({ answer: { status: 200 }, handed: false });
      // As the CLI revokes it (from any process): the server is not told.
      expect(await revokeApiKeys(store, t.users.alice, { namePrefix: 'revoked-later' })).toBe(1);
      for (const notes of ['after-revoke', 'again']) {
        const { answer, handed } = await patch(notes);
        expect(handed).toBe(true);
        expect(answer).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
        expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect(await notesNow()).toBe('by-new-key');
    });

    it('a PATCH waiting longer than the request timeout is answered 503, as by the app, and writes nothing', async () => {
      const { store } = t.server.runtime;
      const before = await notesNow();
      // A key this path has not accepted before: it is looked up, as by the app (a remembered key
      // counts as accepted from arrival, so its 503 would also carry the rate-limit headers).
      const { key } = await createApiKey(store, t.users.alice, { name: 'late' });
      const holder = await holdUnitOfWork(store, (unit) => unit.lockTransaction(t.users.alice, txId));
      try {
        const sent = { key, body: { transaction: { notes: 'late' } } };
        const path = `/api/v1/transactions/${txId}`;
        const init = requestInit(sent, 'late-1-app');
        (init.headers as Record<string, string>)['content-length'] = String(
          Buffer.byteLength(init.body as string),
        );
        const [viaDirect, viaApp] = await Promise.all([
          fetch(`${directUrl}${path}`, requestInit(sent, 'late-1')).then(read),
          Promise.resolve(app.fetch(new Request(`http://localhost${path}`, init))).then(read),
        ]);
        expect(viaDirect.status).toBe(503);
        expect(viaDirect.headers['retry-after']).toBe('5');
        expect(viaDirect.body).toEqual({
          error: 'service_unavailable',
          message: 'The request took too long; try again',
          request_id: 'late-1',
        });
        // The same headers as the app's 503: on SQLite the key lookup waits too, so no rate-limit headers.
        expect({ ...viaDirect.headers, 'x-request-id': '' }).toEqual({
          ...viaApp.headers,
          'x-request-id': '',
        });
      } finally {
        await holder.release();
      }
      // Both PATCHes were waiting for the lock when they were answered 503: once it is free they run
      // on, and roll back instead of committing, so the retry the 503 asks for is the only write.
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await notesNow()).toBe(before);
      }
    });

    /** A request written by hand: headers as given, then the body in `parts`, `gapMs` apart. */
    function handWritten(
      headers: Array<[string, string]>,
      parts: string[],
      gapMs = 0,
    ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
      return new Promise((resolve, reject) => {
        // A connection of its own: one left with an unread body cannot carry another request.
        const request = httpRequest(`${directUrl}/api/v1/transactions/${txId}`, {
          method: 'PATCH',
          agent: false,
        });
        for (const [name, value] of headers) {
          const before = name === 'host' ? undefined : request.getHeader(name);
          request.setHeader(name, before === undefined ? value : [String(before), value]);
        }
        request.on('response', (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          );
        });
        request.on('error', reject);
        request.flushHeaders();
        let next = 0;
        const writeNext = () => {
          if (request.destroyed) return;
          if (next === parts.length) return void request.end();
          request.write(parts[next++]!);
          setTimeout(writeNext, gapMs);
        };
        writeNext();
      });
    }

    it('a Host or a Content-Type the app refuses is refused, and nothing changes', async () => {
      const before = await notesNow();
      const body = JSON.stringify({ transaction: { notes: 'should not be written' } });
      const common: Array<[string, string]> = [
        ['x-api-key', t.keys.alice],
        ['content-length', String(Buffer.byteLength(body))],
      ];
      const badHost = await handWritten(
        [...common, ['host', 'example.com:99999'], ['content-type', 'application/json']],
        [body],
      );
      expect(badHost.status).toBe(400);
      const twoTypes = await handWritten(
        [...common, ['content-type', 'application/json'], ['content-type', 'text/plain']],
        [body],
      );
      expect(twoTypes.status).toBe(415);
      expect(await notesNow()).toBe(before);
    });

    it('takes a Host itself only where the app takes it as it is: any port for localhost and an IPv4 address', async () => {
      const patch = (host: string, notes: string) => {
        const body = JSON.stringify({ transaction: { notes } });
        return handWritten(
          [
            ['x-api-key', t.keys.alice],
            ['content-length', String(Buffer.byteLength(body))],
            ['host', host],
            ['content-type', 'application/json'],
          ],
          [body],
        );
      };
      // A deployment on a high or a low port, or behind a proxy that sends the port.
      for (const host of [
        'localhost',
        'localhost:80',
        '127.0.0.1:443',
        'localhost:59999',
        'localhost:61234',
        '10.0.0.255:65535',
        'example.com:8080',
      ]) {
        const handedBefore = handedOver;
        const answer = await patch(host, `via ${host}`);
        expect({ host, status: answer.status, handed: handedOver > handedBefore }).toEqual({
          host,
          status: 200,
          handed: false,
        });
        expect(await notesNow()).toBe(`via ${host}`);
      }
      // Names `URL` rewrites or refuses on the ports the app checks with it, and what is not a port:
      // the app's to answer (it refuses most of them), never taken here.
      for (const host of [
        '127.1:80',
        '1.2.3:80',
        'foo.123:80',
        'xn--a:443',
        '256.0.0.1:80',
        '00:80',
        'example.com:443',
        'localhost:0',
        'localhost:65536',
        'localhost:080',
      ]) {
        const handedBefore = handedOver;
        await patch(host, 'not by this path');
        expect({ host, handed: handedOver > handedBefore }).toEqual({ host, handed: true });
      }
    });

    it('a path in another case is no route, on this path as on the app: 404, and nothing changes', async () => {
      const before = await notesNow();
      const response = await fetch(`${directUrl}/API/V1/TRANSACTIONS/${txId}`, {
        method: 'PATCH',
        headers: { 'x-api-key': t.keys.alice, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction: { notes: 'written via an uppercase path' } }),
      });
      expect(response.status).toBe(404);
      expect(await notesNow()).toBe(before);
    });

    it('a body nested deeper than any write is refused 400 by the app, not a 500, and nothing changes', async () => {
      const before = await notesNow();
      // Within this server's 4 KiB body limit.
      const deep = `${'['.repeat(1_500)}${']'.repeat(1_500)}`;
      const response = await fetch(`${directUrl}/api/v1/transactions/${txId}`, {
        method: 'PATCH',
        headers: { 'x-api-key': t.keys.alice, 'content-type': 'application/json' },
        body: `{"transaction":{"notes":"deep","extra":${deep}}}`,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'bad_request' });
      expect(await notesNow()).toBe(before);
    });

    it('a wrong key is answered 401 from the headers, without waiting for the body', async () => {
      const answer = await handWritten(
        [
          ['x-api-key', 'wrong'],
          ['content-type', 'application/json'],
          ['content-length', '1000'],
        ],
        [],
      );
      expect(answer.status).toBe(401);
    });

    it('a body that arrives slower than the request timeout is answered 503, and nothing changes', async () => {
      const before = await notesNow();
      const body = JSON.stringify({ transaction: { notes: 'too slow' } });
      const answer = await handWritten(
        [
          ['x-api-key', t.keys.alice],
          ['x-request-id', 'slow-body'],
          ['content-type', 'application/json'],
          ['content-length', String(Buffer.byteLength(body))],
        ],
        [body.slice(0, 10), body.slice(10, 20), body.slice(20)],
        120,
      );
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'service_unavailable' });
      // As the app, whose key lookup has long answered: the key counts as accepted (on SQLite this
      // key is one the path remembers, and is checked again only by the update).
      expect(answer.headers['x-ratelimit-limit']).toBe('Infinity');
      expect(lines.find((l) => l.request_id === 'slow-body')).toMatchObject({
        status: 503,
        user_id: t.users.alice,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await notesNow()).toBe(before);
    });

    it('a client that leaves halfway through its body leaves the server answering', async () => {
      await new Promise<void>((resolve) => {
        const request = httpRequest(`${directUrl}/api/v1/transactions/${txId}`, {
          method: 'PATCH',
          headers: { 'X-Api-Key': t.keys.alice, 'content-type': 'application/json', 'content-length': 100 },
        });
        request.on('error', () => resolve());
        request.write('{"transaction":', () => setTimeout(() => request.destroy(), 20));
        request.on('close', () => resolve());
      });
      const { answer, handed } = await both({ body: { transaction: { notes: 'after' } } });
      expect(handed).toBe(false);
      expect(answer.status).toBe(200);
    });

    it('each PATCH on one kept-alive connection is judged by the key it sends, when the key changes between them', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const patch = (key: string, id: string, notes: string) => patchOnAgent(agent, key, id, notes);
      try {
        const first = await patch(t.keys.alice, txId, 'alice on the connection');
        expect(first).toMatchObject({ status: 200, notes: 'alice on the connection' });
        // Bob's key on the same connection: Alice's row is not his to change, his own is.
        const bobOnAlices = await patch(t.keys.bob, txId, 'bob on alice');
        expect(bobOnAlices.status).toBe(404);
        expect(await patch(t.keys.bob, bobTxId, 'bob on his own')).toMatchObject({
          status: 200,
          notes: 'bob on his own',
        });
        expect((await patch(`${t.keys.alice}x`, txId, 'a wrong key')).status).toBe(401);
        expect(await patch(t.keys.alice, txId, 'alice again')).toMatchObject({
          status: 200,
          notes: 'alice again',
        });
        // One connection carried them all.
        expect(bobOnAlices.socket).toBe(first.socket);
      } finally {
        agent.destroy();
      }
      expect(await notesNow()).toBe('alice again');
    });

    it('PATCHes one after another on one connection commit alone after a streak; another connection brings grouping back', async () => {
      const { store } = t.server.runtime;
      /** A PATCH sent on `agent`'s one kept-alive connection: its status and the notes it answered. */
      const patchOn = async (agent: Agent, notes: string) => {
        const answer = await patchOnAgent(agent, t.keys.alice, txId, notes);
        return { status: answer.status, notes: answer.notes };
      };
      const one = new Agent({ keepAlive: true, maxSockets: 1 });
      const other = new Agent({ keepAlive: true, maxSockets: 1 });
      const atomically = vi.spyOn(store, 'atomically');
      let calls: (typeof atomically.mock.calls)[number][] = [];
      try {
        const sent: Array<[Agent, string]> = Array.from({ length: 12 }, (_, i) => [one, `streak-${i}`]);
        sent.push([other, 'other connection'], [one, 'back']);
        for (const [agent, notes] of sent)
          expect(await patchOn(agent, notes)).toEqual({ status: 200, notes });
      } finally {
        calls = [...atomically.mock.calls];
        atomically.mockRestore();
        one.destroy();
        other.destroy();
      }
      // What each PATCH asked of the store (the group commit's own calls name no `group`).
      const asked = calls
        .map(([, options]) => options)
        .filter((options) => options !== undefined && 'group' in options)
        .map((options) => options!.group);
      expect(asked).toEqual([...Array<boolean>(8).fill(true), ...Array<boolean>(4).fill(false), true, true]);
      expect(await notesNow()).toBe('back');
    });
  });
}
