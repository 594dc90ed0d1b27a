import { ProviderClient } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECTION_ID_LENGTH, MemoryStorage, SyncEngine, UnknownConnectionError } from '../src/index.js';
import { newConnectionState } from '../src/engine/connection-status.js';

/** An engine on a memory storage whose every call is recorded. */
function engine(storage = new MemoryStorage()) {
  const calls: string[] = [];
  const recorded = new Proxy(storage, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { engine: new SyncEngine({ storage: recorded }), calls, storage };
}

const client = () => new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0 });
const tooLong = 'x'.repeat(MAX_CONNECTION_ID_LENGTH + 1);

describe('connection ids', () => {
  it('are refused for a new connection unless a non-empty string of at most 256 characters without U+0000', async () => {
    const { engine: e, storage } = engine();
    for (const id of [
      'a\u0000b',
      'user-\ud800',
      'user-\udc00x',
      tooLong,
      '',
      42 as unknown as string,
      undefined as unknown as string,
    ]) {
      await expect(e.addConnection({ id, client: client() }), JSON.stringify(id)).rejects.toThrow(TypeError);
    }
    expect(await storage.listConnections()).toEqual([]);
    // The message gives the length, not the id.
    await expect(e.addConnection({ id: tooLong, client: client() })).rejects.toThrow(
      `a connection id must be at most ${MAX_CONNECTION_ID_LENGTH} characters, got ${MAX_CONNECTION_ID_LENGTH + 1}`,
    );
    const longest = 'y'.repeat(MAX_CONNECTION_ID_LENGTH);
    await e.addConnection({ id: longest, client: client() });
    expect((await storage.listConnections()).map((c) => c.id)).toEqual([longest]);
  });

  it('longer than 256 characters keep working for a connection stored before the bound', async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [newConnectionState(tooLong, new Date())] });
    const { engine: e } = engine(storage);
    expect((await e.addConnection({ id: tooLong, client: client() })).id).toBe(tooLong);
    expect((await e.getConnection(tooLong))?.id).toBe(tooLong);
    await e.removeConnection(tooLong, { purge: true });
    expect(await storage.listConnections()).toEqual([]);
  });

  it('with U+0000 or a lone surrogate are unknown to every lookup, which never reaches the storage', async () => {
    const { engine: e, calls } = engine();
    await e.addConnection({ id: 'c1', client: client() });
    calls.length = 0;
    for (const id of ['c1\u0000', 'c1\ud800']) {
      expect(await e.getConnection(id)).toBeUndefined();
      await expect(e.sync(id)).rejects.toBeInstanceOf(UnknownConnectionError);
      await expect(e.updateCredentials(id, { apiKey: 'k_new' })).rejects.toBeInstanceOf(
        UnknownConnectionError,
      );
    }
    await e.removeConnection('c1\u0000', { purge: true });
    expect(calls).toEqual([]);
    // A lone surrogate still reaches the storage's removal: a connection stored under one before
    // such ids were refused is removed under it (packages/sqlite/test/stored-odd-ids.test.ts).
    await e.removeConnection('c1\ud800', { purge: true });
    expect(calls).toEqual(['removeConnection']);
    // An unknown id of any length is unknown, as before.
    await expect(e.sync(tooLong)).rejects.toBeInstanceOf(UnknownConnectionError);
  });

  it('are cut short in error messages', async () => {
    const { engine: e } = engine();
    const id = `z${'9'.repeat(5000)}`;
    const error = await e.sync(id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownConnectionError);
    expect((error as UnknownConnectionError).message).toBe(`no connection with id "z${'9'.repeat(63)}…"`);
    // The error still carries the whole id for the caller's own use.
    expect((error as UnknownConnectionError).connectionId).toBe(id);
  });
});
