import { ProviderClient } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECTION_ID_LENGTH, MemoryStorage, SyncEngine, UnknownConnectionError } from '../src/index.js';

function engine() {
  const storage = new MemoryStorage();
  const calls: string[] = [];
  const counted = new Proxy(storage, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { engine: new SyncEngine({ storage: counted }), calls, storage };
}

const client = () => new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0 });
// Ids no storage can key a connection by: PostgreSQL's text cannot hold U+0000.
const impossible = ['a\u0000b', 'x'.repeat(MAX_CONNECTION_ID_LENGTH + 1)];

describe('connection ids', () => {
  it('are refused when no storage could hold them, and nothing is written', async () => {
    const { engine: e, storage } = engine();
    for (const id of [...impossible, '', 42 as unknown as string, undefined as unknown as string]) {
      await expect(e.addConnection({ id, client: client() }), JSON.stringify(id)).rejects.toThrow(TypeError);
    }
    expect(await storage.listConnections()).toEqual([]);
    // The message gives the length, not the id.
    await expect(e.addConnection({ id: impossible[1]!, client: client() })).rejects.toThrow(
      `a connection id must be at most ${MAX_CONNECTION_ID_LENGTH} characters without U+0000, got ${MAX_CONNECTION_ID_LENGTH + 1} characters`,
    );
    // The longest allowed id is taken.
    const longest = 'y'.repeat(MAX_CONNECTION_ID_LENGTH);
    await e.addConnection({ id: longest, client: client() });
    expect((await storage.listConnections()).map((c) => c.id)).toEqual([longest]);
  });

  it('that cannot exist are unknown to every lookup, which never reaches the storage', async () => {
    const { engine: e, calls } = engine();
    await e.addConnection({ id: 'c1', client: client() });
    calls.length = 0;
    for (const id of impossible) {
      expect(await e.getConnection(id)).toBeUndefined();
      await expect(e.sync(id)).rejects.toBeInstanceOf(UnknownConnectionError);
      await expect(e.updateCredentials(id, { apiKey: 'k_new' })).rejects.toBeInstanceOf(
        UnknownConnectionError,
      );
      await e.removeConnection(id, { purge: true });
    }
    expect(calls).toEqual([]);
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
