import { StorageConflictError, SyncError } from '@finsync/sync';
import { fixtures } from '@finsync/sync/testing';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DatabaseBusyError, SqliteStorage } from '../src/index.js';
import { dump, rawDatabase, tempDatabase } from './helpers.js';

const { account, accountState, added, connectionState, holding, transaction } = fixtures;

async function openStorage(
  filename: string,
  options: { busyTimeoutMs?: number; walAutocheckpointPages?: number } = {},
): Promise<SqliteStorage> {
  const storage = new SqliteStorage({ filename, ...options });
  await storage.init();
  return storage;
}

describe('SqliteStorage: connection settings', () => {
  it('puts a database file in WAL mode with NORMAL sync, foreign keys and a 5 s busy timeout', async () => {
    const storage = await openStorage(tempDatabase());
    const db = storage.database;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    await storage.close();
  });

  it('takes the WAL checkpoint interval, 0 for none, and refuses one out of bounds before opening anything', async () => {
    const every = await openStorage(tempDatabase(), { walAutocheckpointPages: 500 });
    expect(every.database.pragma('wal_autocheckpoint', { simple: true })).toBe(500);
    await every.close();
    const never = await openStorage(tempDatabase(), { walAutocheckpointPages: 0 });
    expect(never.database.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await never.close();
    for (const bad of [-1, 1.5, 1_000_001, Number.NaN]) {
      const filename = tempDatabase();
      expect(() => new SqliteStorage({ filename, walAutocheckpointPages: bad })).toThrow(
        /walAutocheckpointPages must be an integer from 0 to 1000000/,
      );
      expect(existsSync(filename)).toBe(false);
    }
  });

  it('takes a custom busy timeout, and leaves :memory: in memory journal mode', async () => {
    const storage = await openStorage(':memory:', { busyTimeoutMs: 250 });
    expect(storage.database.pragma('busy_timeout', { simple: true })).toBe(250);
    expect(storage.database.pragma('journal_mode', { simple: true })).toBe('memory');
    await storage.close();
    expect(() => new SqliteStorage({ filename: ':memory:', busyTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => new SqliteStorage({ filename: '' })).toThrow(/'' opens a temporary database/);
    // Both: the file used to be ignored in silence.
    const db = rawDatabase(':memory:');
    expect(
      () => new SqliteStorage({ database: db, filename: 'other.db' } as unknown as { database: typeof db }),
    ).toThrow('pass either database or filename, not both');
    db.close();
  });
});

describe('SqliteStorage: another connection holding the write lock', () => {
  it('fails the write past busyTimeoutMs with a typed DatabaseBusyError, writing nothing, and the call can be made again', async () => {
    const filename = tempDatabase();
    const storage = await openStorage(filename, { busyTimeoutMs: 50 });
    const other = rawDatabase(filename);
    const batch = { changes: [added(transaction('c1', 'a1', 'id:1'))], connections: [connectionState('c1')] };
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await storage.apply(batch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseBusyError);
      expect(error).toBeInstanceOf(SyncError);
      expect((error as Error).message).toMatch(
        /^apply: the database stayed locked by another connection for 50 ms/,
      );
      expect(((error as Error).cause as { code: string }).code).toBe('SQLITE_BUSY');
      await expect(storage.removeConnection('c1')).rejects.toBeInstanceOf(DatabaseBusyError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await storage.lastSeq()).toBe(0);
    await storage.apply(batch);
    expect(await storage.countTransactions('c1')).toBe(1);
    await storage.close();
  });
});

describe('SqliteStorage: a new file whose first use is blocked by another connection', () => {
  it('fails its migration past busyTimeoutMs with the same DatabaseBusyError, and migrates once the lock is gone', async () => {
    const filename = tempDatabase();
    const other = rawDatabase(filename);
    other.pragma('journal_mode = WAL');
    other.exec('BEGIN IMMEDIATE');
    const storage = new SqliteStorage({ filename, busyTimeoutMs: 50 });
    try {
      const error = await storage.init().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseBusyError);
      expect((error as Error).message).toMatch(
        /^migrate: the database stayed locked by another connection for 50 ms/,
      );
      await expect(storage.apply({ changes: [] })).rejects.toBeInstanceOf(DatabaseBusyError);
    } finally {
      other.exec('ROLLBACK');
    }
    await storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:1'))],
      connections: [connectionState('c1')],
    });
    expect(await storage.countTransactions('c1')).toBe(1);
    await storage.close();
  });
});

describe('SqliteStorage: money stays text', () => {
  it('declares no REAL (or other numeric-affinity) column, and every table is STRICT', async () => {
    const storage = await openStorage(tempDatabase());
    const db = storage.database;
    const tables = db
      .prepare<[], { name: string; strict: number }>(
        "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'",
      )
      .all();
    expect(tables.map((t) => t.name).sort()).toEqual([
      'account_states',
      'accounts',
      'connections',
      'feed',
      'finsync_migrations',
      'holdings',
      'superseded_transactions',
      'transactions',
    ]);
    const money: Record<string, string[]> = {
      accounts: ['balance_amount'],
      transactions: ['amount'],
      holdings: ['quantity', 'price', 'value', 'cost_basis'],
    };
    for (const table of tables) {
      expect(table.strict, table.name).toBe(1);
      const columns = db
        .prepare<[], { name: string; type: string }>(`PRAGMA table_info("${table.name}")`)
        .all();
      for (const column of columns) {
        expect(['TEXT', 'INTEGER'], `${table.name}.${column.name}`).toContain(column.type);
      }
      for (const name of money[table.name] ?? []) {
        expect(columns.find((c) => c.name === name)?.type, `${table.name}.${name}`).toBe('TEXT');
      }
    }
    await storage.close();
  });

  it('returns amounts exactly as written, after reopening, in the mirror and the feed', async () => {
    const filename = tempDatabase();
    const storage = await openStorage(filename);
    const amounts = [
      '-12345678901234.56789',
      '0.10',
      '-0',
      '00012.3400',
      '123456789012345678901234567890.123456789',
      '1e5',
    ];
    const rows = amounts.map((amount, i) => transaction('c1', 'a1', `id:${i}`, { amount }));
    const a = account('c1', 'a1', {
      balance: { amount: '-9007199254740993.01', currency: null, fetchedAt: '2026-01-02T03:04:05.000Z' },
    });
    const h = holding('c1', 'a1', 'id:h', {
      quantity: '0.000000001',
      price: '99999999999999999.99',
      value: '0.10',
      costBasis: '-0.00',
    });
    await storage.apply({
      changes: [
        ...rows.map(added),
        { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'a1', record: a },
        { entity: 'holding', op: 'added', connectionId: 'c1', accountId: 'a1', key: h.key, record: h },
      ],
    });
    await storage.close();

    const again = await openStorage(filename);
    expect((await again.findTransactions('c1', 'a1')).map((t) => t.amount)).toEqual(amounts);
    expect(await again.listAccounts('c1')).toEqual([a]);
    expect(await again.listHoldings('c1', 'a1')).toEqual([h]);
    const feed = await again.readChanges({ limit: 100 });
    expect(feed.slice(0, amounts.length).map((e) => (e.record as { amount: string }).amount)).toEqual(
      amounts,
    );
    const types = again.database.prepare('SELECT DISTINCT typeof(amount) FROM transactions').pluck().all();
    expect(types).toEqual(['text']);
    await again.close();
  });
});

describe('SqliteStorage: atomicity and durability', () => {
  it('a rejected batch leaves the file exactly as it was, even after reopening', async () => {
    const filename = tempDatabase();
    const storage = await openStorage(filename);
    const t = transaction('c1', 'a1', 'id:1');
    await storage.apply({
      changes: [added(t)],
      connections: [connectionState('c1')],
      accountStates: [accountState('c1', 'a1')],
    });
    const before = dump(storage.database);
    const seq = await storage.lastSeq();

    const attempt = storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:2')), added(transaction('c1', 'a2', 'id:3')), added(t)],
      connections: [connectionState('c1', { status: 'paused' }), connectionState('c9')],
      accountStates: [accountState('c1', 'a1', { watermark: '2026-03-01' })],
    });
    await expect(attempt).rejects.toBeInstanceOf(StorageConflictError);
    await expect(attempt).rejects.toMatchObject({ entity: 'transaction', key: 'id:1' });
    await storage.close();

    const again = await openStorage(filename);
    expect(dump(again.database)).toEqual(before);
    // The rolled-back batch did not burn feed positions either.
    await again.apply({ changes: [added(transaction('c1', 'a1', 'id:2'))] });
    expect(await again.lastSeq()).toBe(seq + 1);
    await again.close();
  });

  it('two storages on one file (two connections) commit in turn with unique seqs', async () => {
    const filename = tempDatabase();
    const [one, two] = [await openStorage(filename), await openStorage(filename)];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? one : two).apply({ changes: [added(transaction('c1', 'a1', `id:${i}`))] }),
      ),
    );
    const feed = await one.readChanges({ limit: 100 });
    expect(new Set(feed.map((e) => e.seq)).size).toBe(10);
    expect(await two.countTransactions('c1')).toBe(10);
    await Promise.all([one.close(), two.close()]);
  });

  it('lastSeq never goes back, even when removeConnection deletes the newest entries', async () => {
    const storage = await openStorage(':memory:');
    await storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:1')), added(transaction('c2', 'a1', 'id:1'))],
    });
    await storage.removeConnection('c2');
    expect(await storage.lastSeq()).toBe(2);
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:2'))] });
    expect((await storage.readChanges({ limit: 10 })).map((e) => e.seq)).toEqual([1, 3]);
    await storage.close();
  });

  it('backs up a live database to a consistent copy', async () => {
    const filename = tempDatabase();
    const storage = await openStorage(filename);
    await storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:1'))],
      connections: [connectionState('c1')],
    });
    const copy = `${filename}.backup`;
    await storage.backup(copy);
    await storage.close();
    const restored = await openStorage(copy);
    expect(await restored.countTransactions('c1')).toBe(1);
    expect(await restored.getConnection('c1')).toEqual(connectionState('c1'));
    await restored.close();
  });
});

describe('SqliteStorage: reads', () => {
  it('scans more rows than a chunk, in key order, while the scanned account is being written', async () => {
    const storage = await openStorage(tempDatabase());
    const keys = Array.from({ length: 2_500 }, (_, i) => `id:${String(i).padStart(5, '0')}`);
    await storage.apply({
      changes: [
        ...keys.map((key) => added(transaction('c1', 'a2', key))),
        added(transaction('c1', 'a1', 'id:x')),
      ],
    });
    const seen: string[] = [];
    for await (const row of storage.scanTransactions('c1')) {
      seen.push(`${row.accountId}/${row.key}`);
      // A write mid-scan: a statement iterator held open across this would make it throw.
      if (seen.length % 700 === 0)
        await storage.apply({ changes: [added(transaction('c9', 'a1', `id:${seen.length}`))] });
    }
    expect(seen).toEqual(['a1/id:x', ...keys.map((k) => `a2/${k}`)]);
    const one: string[] = [];
    for await (const row of storage.scanTransactions('c1', 'a2')) one.push(row.key);
    expect(one).toEqual(keys);
    await storage.close();
  });

  it('answers pending, date-window and feed queries from the indexes, without sorting', async () => {
    const executed: string[] = [];
    const db = rawDatabase(':memory:', { verbose: (sql) => executed.push(String(sql)) });
    const storage = new SqliteStorage({ database: db });
    await storage.init();
    const planOf = async (read: () => Promise<unknown>) => {
      executed.length = 0;
      await read();
      const sql = executed.at(-1)!;
      return db
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => r.detail)
        .join('\n');
    };
    const pending = await planOf(() => storage.findTransactions('c', 'a', { pending: true }));
    expect(pending).toMatch(/USING INDEX transactions_pending/);
    const window = await planOf(() =>
      storage.findTransactions('c', 'a', { from: '2026-01-01', to: '2026-02-01' }),
    );
    expect(window).toMatch(
      /USING INDEX transactions_by_date \(connection_id=\? AND account_id=\? AND date>\? AND date<\?\)/,
    );
    for (const plan of [pending, window]) expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(await planOf(() => storage.readChanges({ connectionId: 'c', after: 5, limit: 10 }))).toMatch(
      /USING INDEX feed_by_connection/,
    );
    expect(await planOf(() => storage.countTransactions('c', 'a'))).toMatch(
      /USING (PRIMARY KEY|COVERING INDEX)/,
    );
    await storage.close();
  });
});

describe('SqliteStorage: lifecycle', () => {
  it('close is idempotent and later calls reject', async () => {
    const storage = await openStorage(tempDatabase());
    await storage.close();
    await storage.close();
    await expect(storage.lastSeq()).rejects.toThrow(/closed/);
    await expect(storage.apply({ changes: [] })).rejects.toThrow(/closed/);
  });

  it('works without an explicit init, as the memory storage does', async () => {
    const storage = new SqliteStorage({ filename: ':memory:' });
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:1'))] });
    expect(await storage.countTransactions('c1')).toBe(1);
    await storage.close();
  });

  it('uses a caller-owned database and leaves it open on close', async () => {
    const db = rawDatabase(tempDatabase());
    const storage = new SqliteStorage({ database: db });
    await storage.init();
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:1'))] });
    await storage.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(1);
    expect(() => new SqliteStorage({ database: db }).database).not.toThrow();
  });

  it('opens read-only: reads work, writes are refused', async () => {
    const filename = tempDatabase();
    const writer = await openStorage(filename);
    await writer.apply({ changes: [added(transaction('c1', 'a1', 'id:1'))] });
    const reader = new SqliteStorage({ filename, readonly: true });
    await reader.init();
    expect(await reader.countTransactions('c1')).toBe(1);
    await expect(reader.apply({ changes: [added(transaction('c1', 'a1', 'id:2'))] })).rejects.toThrow(
      /read-only/,
    );
    await expect(reader.removeConnection('c1')).rejects.toThrow(/read-only/);
    await writer.apply({ changes: [added(transaction('c1', 'a1', 'id:3'))] });
    expect(await reader.countTransactions('c1')).toBe(2);
    await Promise.all([reader.close(), writer.close()]);
  });
});
