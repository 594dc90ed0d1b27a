/**
 * A client that sends part of its headers and then nothing is answered 408 and let go once the
 * headers' time is up, within about a second of it: not on Node's own 30 s check, which would let a
 * slow client hold each socket for up to 30 s longer than the README says.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

describe('a client that stops sending its headers', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(BACKENDS[0]!, { historyDays: 5 }, { headersTimeoutMs: 500 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is answered 408 and its socket closed within about a second of the headers timeout', async () => {
    const { port } = new URL(t.server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const started = Date.now();
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(2_500);
  }, 40_000);
});
