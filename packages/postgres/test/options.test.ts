import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';

// Checked when the storage is made: no server is needed.
describe('PostgresStorage options', () => {
  it('refuses a connectionString that is not a string, instead of failing on the first query', () => {
    expect(() => new PostgresStorage({ connectionString: 42 as unknown as string })).toThrow(
      'connectionString must be a string, got number',
    );
  });
});

describe('the pool the storage creates', () => {
  it('gives up on a server that accepts and never answers, instead of waiting for good', async () => {
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as import('node:net').AddressInfo;
    // The default is 30 s, as the next test checks; a short one here keeps the test quick.
    const storage = new PostgresStorage({
      connectionString: `postgres://nobody@127.0.0.1:${port}/none`,
      poolConfig: { connectionTimeoutMillis: 300 },
    });
    const started = Date.now();
    await expect(storage.init()).rejects.toThrow(/timeout/i);
    expect(Date.now() - started).toBeLessThan(5_000);
    await storage.close().catch(() => undefined);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('waits 30 s for a connection and keeps TCP alive by default; poolConfig overrides either', () => {
    const options = (storage: PostgresStorage) =>
      (storage.pool as unknown as { options: { connectionTimeoutMillis?: number; keepAlive?: boolean } })
        .options;
    const byDefault = new PostgresStorage({ connectionString: 'postgres://x@127.0.0.1/none' });
    expect(options(byDefault)).toMatchObject({
      connectionTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 30_000,
    });
    const chosen = new PostgresStorage({
      connectionString: 'postgres://x@127.0.0.1/none',
      poolConfig: { connectionTimeoutMillis: 5_000, keepAlive: false },
    });
    expect(options(chosen)).toMatchObject({ connectionTimeoutMillis: 5_000, keepAlive: false });
  });
});
