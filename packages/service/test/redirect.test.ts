// Redirects against real sockets (no MSW here): the service on one port, "elsewhere" on another,
// so Node's own fetch decides what crosses — the case that matters for the key.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedirectError, ServiceClient } from '../src/index.js';
import { KEY, TX_ID, settle, wireTransaction } from './helpers.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Route = (seen: Seen) => { status: number; headers?: Record<string, string>; body?: unknown };

/** A server on 127.0.0.1:<random port> answering with `route`, recording every request. */
async function start(route: () => Route) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      seen.push(entry);
      const answer = route()(entry);
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let serviceRoute: Route = () => ({ status: 500 });
const ok: Route = (seen) => ({ status: 200, body: wireTransaction({ name: `at ${seen.url}` }) });
let service: Awaited<ReturnType<typeof start>>;
let elsewhere: Awaited<ReturnType<typeof start>>;

beforeAll(async () => {
  service = await start(() => serviceRoute);
  elsewhere = await start(() => ok);
});
afterAll(async () => {
  await service.close();
  await elsewhere.close();
});
beforeEach(() => {
  service.seen.length = 0;
  elsewhere.seen.length = 0;
});

const client = () => new ServiceClient({ baseUrl: service.origin, apiKey: KEY, maxRetries: 2 });
const to =
  (location: string, status = 302): Route =>
  () => ({ status, headers: { location } });

describe('why: fetch alone follows a redirect to another origin with X-Api-Key', () => {
  it('a plain fetch hands the key to the other port', async () => {
    serviceRoute = to(`${elsewhere.origin}/api/v1/transactions/${TX_ID}`);
    await fetch(`${service.origin}/api/v1/transactions/${TX_ID}`, { headers: { 'x-api-key': KEY } });
    expect(elsewhere.seen[0]?.headers['x-api-key']).toBe(KEY);
  });
});

describe('a redirect to another origin', () => {
  it.each([301, 302, 303, 307, 308])(
    '%i: RedirectError naming the origin; nothing reaches it',
    async (status) => {
      serviceRoute = to(`${elsewhere.origin}/api/v1/transactions/${TX_ID}?x=1`, status);
      const error = (await settle(client().transactions.get(TX_ID))) as RedirectError;
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toMatchObject({
        status,
        origin: elsewhere.origin,
        location: `${elsewhere.origin}/api/v1/transactions/${TX_ID}?x=1`,
        method: 'GET',
        path: `/api/v1/transactions/${TX_ID}`,
      });
      expect(error.message).toContain(elsewhere.origin);
      expect(elsewhere.seen).toEqual([]);
      // Not retried: the same request gets the same redirect.
      expect(service.seen).toHaveLength(1);
    },
  );

  it('the error never holds the key, even when the Location carries it', async () => {
    serviceRoute = to(`${elsewhere.origin}/steal?key=${KEY}`);
    const error = (await settle(client().transactions.get(TX_ID))) as RedirectError;
    const text = `${JSON.stringify(error)}\n${error.message}\n${error.stack}`;
    expect(text).not.toContain(KEY);
    expect(error.location).toBe(`${elsewhere.origin}/steal?key=[REDACTED]`);
  });

  it('a relative Location with another port, and an https upgrade, count as other origins', async () => {
    const port = new URL(elsewhere.origin).port;
    serviceRoute = to(`//127.0.0.1:${port}/api/v1/tags`);
    expect(await settle(client().tags.list())).toMatchObject({ origin: elsewhere.origin });
    serviceRoute = to(`${service.origin.replace('http:', 'https:')}/api/v1/tags`, 308);
    expect(await settle(client().tags.list())).toBeInstanceOf(RedirectError);
    expect(elsewhere.seen).toEqual([]);
  });

  it('writes too: a POST is refused, sent once, and its body goes nowhere else', async () => {
    serviceRoute = to(`${elsewhere.origin}/api/v1/tags`, 307);
    const error = await settle(client().tags.create({ name: 'Household' }));
    expect(error).toBeInstanceOf(RedirectError);
    expect(service.seen.map((s) => [s.method, s.body])).toEqual([['POST', '{"tag":{"name":"Household"}}']]);
    expect(elsewhere.seen).toEqual([]);
  });
});

describe('a redirect within the service origin', () => {
  it('GET follows it, key included (it is the same service)', async () => {
    const old = '00000000-0000-4000-8000-000000000001';
    serviceRoute = (seen) =>
      seen.url.endsWith(old) ? to(`/api/v1/transactions/${TX_ID}`, 301)(seen) : ok(seen);
    const tx = await client().transactions.get(old);
    expect(tx.name).toBe(`at /api/v1/transactions/${TX_ID}`);
    expect(service.seen.map((s) => s.headers['x-api-key'])).toEqual([KEY, KEY]);
  });

  it('its log line masks a key the Location carries, as the error does', async () => {
    serviceRoute = (seen) =>
      seen.url.startsWith('/api/v1/moved/')
        ? ok(seen)
        : to(`/api/v1/moved/${KEY}/transactions/${TX_ID}`, 307)(seen);
    const lines: string[] = [];
    const logged = new ServiceClient({
      baseUrl: service.origin,
      apiKey: KEY,
      logger: { info: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`) },
    });
    await logged.transactions.get(TX_ID);
    const line = lines.find((l) => l.includes('redirected'));
    expect(line).toContain('/api/v1/moved/[REDACTED]/transactions');
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('PATCH follows a 307/308 with the same method and body', async () => {
    serviceRoute = (seen) =>
      seen.url.endsWith('/moved') ? ok(seen) : to('/api/v1/transactions/moved', 308)(seen);
    await client().transactions.update(TX_ID, { notes: 'n' });
    expect(service.seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['PATCH', `/api/v1/transactions/${TX_ID}`, '{"transaction":{"notes":"n"}}'],
      ['PATCH', '/api/v1/transactions/moved', '{"transaction":{"notes":"n"}}'],
    ]);
  });

  it('PATCH does not follow a 303 (it would become a GET whose answer is not the update)', async () => {
    serviceRoute = to(`/api/v1/transactions/${TX_ID}`, 303);
    const error = (await settle(client().transactions.update(TX_ID, { notes: 'n' }))) as RedirectError;
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toContain('turns it into a GET');
    expect(service.seen).toHaveLength(1);
  });

  it('gives up after 5 hops', async () => {
    serviceRoute = (seen) => to(`/api/v1/transactions/${seen.url.length}`)(seen);
    const error = (await settle(client().transactions.get(TX_ID))) as RedirectError;
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toContain('more than 5 redirects');
    expect(service.seen).toHaveLength(6);
  });
});
