import { StorageConflictError, type Change, type FeedEntry, type MirrorTransaction } from '@finsync/sync';
import { fixtures } from '@finsync/sync/testing';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { adminPool, countingPool, dropSchema, url } from './helpers.js';

const { account, accountState, added, connectionState, holding, modified, removed, transaction } = fixtures;

function rows(count: number, prefix = 'id:', accountId = 'a1'): MirrorTransaction[] {
  return Array.from({ length: count }, (_, i) =>
    transaction('c1', accountId, `${prefix}${String(i).padStart(6, '0')}`, { amount: `-${i}.${i % 100}` }),
  );
}

describe.skipIf(!url)(postgresSuiteName('PostgresStorage'), () => {
  const schemas: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  async function open(
    options: ConstructorParameters<typeof PostgresStorage>[0] = {},
  ): Promise<PostgresStorage> {
    const schema = options.schema ?? freshSchemaName();
    if (!schemas.includes(schema)) schemas.push(schema);
    const storage = new PostgresStorage({
      ...(options.pool ? {} : { connectionString: url }),
      ...options,
      schema,
    });
    cleanups.push(() => storage.close());
    await storage.init();
    return storage;
  }

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await Promise.all(schemas.splice(0).map(dropSchema));
  });

  it('round-trips decimals, awkward text and every nullable field exactly', async () => {
    const storage = await open();
    const awkward = [
      '',
      'NULL',
      'null',
      '"quoted"',
      'back\\slash',
      '{a,b}',
      "it's",
      'ünïcødé 💷',
      ' padded ',
      'tab\there',
      'bell\u0007 and C:\\new',
    ];
    const amounts = ['-12345678901234567890.123456789012345678', '0.10', '-0.000', '1e5', '00042', '+3.50'];
    const txs = amounts.map((amount, i) =>
      transaction('c1', 'a1', `id:${i}`, {
        amount,
        merchant: awkward[i] ?? null,
        description: awkward.at(-i - 1)!,
      }),
    );
    const odd = awkward.map((text, i) =>
      transaction('c1', text, `k:${text}`, {
        currency: null,
        merchant: null,
        description: null,
        providerId: text,
        date: `2026-01-0${(i % 9) + 1}`,
      }),
    );
    const acct = account('c1', 'a1', {
      balance: { amount: '-0.10', currency: null, fetchedAt: '2026-01-02T03:04:05Z' },
    });
    const bare = account('c1', 'a2', {
      balance: null,
      institutionName: null,
      provider: null,
      upstreamStatus: null,
      currency: null,
    });
    const h = holding('c1', 'a1', 'h1', {
      quantity: '0.000000001',
      price: null,
      value: '1234567890.0000000001',
      costBasis: '-0',
    });
    const changes: Change[] = [
      { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'a1', record: acct },
      { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a2', key: 'a2', record: bare },
      ...txs.map(added),
      ...odd.map(added),
      { entity: 'holding', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'h1', record: h },
    ];
    const state = connectionState('c1', {
      status: 'paused',
      pausedUntil: '2026-01-01T01:00:00+00:00',
      lastRunAt: '2026-01-01T00:59:59.123456Z',
    });
    const states = [
      accountState('c1', 'a1', { watermark: '2026-03-01', holdingsSupported: false, lastError: 'x\ny' }),
      accountState('c1', 'a2', { holdingsSupported: true, lastSyncedAt: '2026-03-01T00:00:00Z' }),
    ];
    await storage.apply({ changes, connections: [state], accountStates: states });

    expect(await storage.findTransactions('c1', 'a1')).toEqual(txs);
    for (const t of odd) expect(await storage.findTransactions('c1', t.accountId)).toEqual([t]);
    expect(await storage.listAccounts('c1')).toEqual([acct, bare]);
    expect(await storage.listHoldings('c1', 'a1')).toEqual([h]);
    expect(await storage.getConnection('c1')).toEqual(state);
    expect(await storage.listAccountStates('c1')).toEqual(states);
    const feed = await storage.readChanges({ limit: 100 });
    expect(feed.map(({ seq: _seq, at: _at, ...change }) => change)).toEqual(changes);
  });

  it('orders by code point whatever the database collation', async () => {
    const storage = await open();
    const keys = ['id:b', 'id:B', 'id:a', 'id:_', 'id:Z', 'id:é', 'id:10', 'id:9'];
    await storage.apply({ changes: keys.map((k) => added(transaction('c1', 'a1', k))) });
    const sorted = [...keys].sort();
    expect((await storage.findTransactions('c1', 'a1')).map((t) => t.key)).toEqual(sorted);
    const scanned: string[] = [];
    for await (const t of storage.scanTransactions('c1', 'a1')) scanned.push(t.key);
    expect(scanned).toEqual(sorted);
  });

  it('keeps replaces / replacedBy exactly as applied: absent, null or set', async () => {
    const storage = await open();
    const t = transaction('c1', 'a1', 'id:1');
    const u = transaction('c1', 'a1', 'id:2');
    const changes: Change[] = [
      added(t),
      { ...added(u), replaces: null, replacedBy: 'x' },
      { ...removed(t), replacedBy: null },
    ];
    await storage.apply({ changes });
    const feed = await storage.readChanges({ limit: 10 });
    expect(feed.map(({ seq: _seq, at: _at, ...change }) => change)).toEqual(changes);
    expect('replaces' in feed[0]!).toBe(false);
    expect(Object.keys(feed[2]!)).toContain('replacedBy');
    expect(Object.keys(feed[2]!)).not.toContain('replaces');
  });

  it("stores each feed record as its JSON's own text, and a removal's as SQL NULL", async () => {
    const schema = freshSchemaName();
    const storage = await open({ schema });
    // A lone surrogate goes into the record's JSON as its escape, which the feed keeps as written.
    const texts = [
      'say "hi"',
      'back\\slash \\"',
      'two\nlines\ttab',
      'null',
      '[1,2]',
      '💷 ünï',
      '\\u0041',
      'CAFE \ud83d',
    ];
    const records = texts.map((text, i) =>
      transaction('c1', 'a1', `id:${i}`, { merchant: text, description: `${text}${i}` }),
    );
    const changes: Change[] = [...records.map(added), removed(records[0]!), added(records[0]!)];
    await storage.apply({ changes });
    const { rows: stored } = await adminPool().query<{ record: string | null }>(
      `SELECT record::text AS record FROM "${schema}".feed ORDER BY seq`,
    );
    expect(stored.map((row) => row.record)).toEqual([
      ...records.map((record) => JSON.stringify(record)),
      null,
      JSON.stringify(records[0]),
    ]);
    const feed = await storage.readChanges({ limit: 100 });
    expect(feed.map(({ seq: _seq, at: _at, ...change }) => change)).toEqual(changes);
  });

  it('a failed batch leaves nothing: no mirror rows, feed entries, states or seq', async () => {
    const storage = await open();
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:keep'))] });
    const before = await storage.lastSeq();
    const big = rows(500, 'id:new-');
    // The conflict is in the last group, after two groups and states have been written.
    const changes: Change[] = [
      ...big.map(added),
      ...big.slice(0, 10).map((t) => modified({ ...t, amount: '1' })),
      added(transaction('c1', 'a1', 'id:keep')),
    ];
    const error = await storage
      .apply({ changes, connections: [connectionState('c9')], accountStates: [accountState('c9', 'a1')] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageConflictError);
    expect(error).toMatchObject({ entity: 'transaction', key: 'id:keep' });
    expect(await storage.countTransactions('c1')).toBe(1);
    expect(await storage.lastSeq()).toBe(before);
    expect(await storage.readChanges({ after: before, limit: 10 })).toEqual([]);
    expect(await storage.getConnection('c9')).toBeUndefined();
    expect(await storage.listAccountStates('c9')).toEqual([]);
  });

  it('sends one statement at a time, and a statement failing mid-batch throws its own error and leaves nothing', async () => {
    // Each statement's parameters are built while the one before runs (write.ts); pg allows one
    // query in flight per client (queuing a second is deprecated). This pool counts the queries in
    // flight and makes the account states' upsert, between the rows and the feed, fail as the
    // server would fail it.
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    cleanups.push(() => pool.end());
    let inFlight = 0;
    let mostInFlight = 0;
    const sent: string[] = [];
    pool.on('connect', (client) => {
      const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
        const failing = /INSERT INTO \S+\.account_states/.test(text ?? '') && args.length > 1;
        // pg's pool calls with a callback, and gets no promise back: those are not the storage's.
        if (typeof args.at(-1) === 'function') return original(...args);
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        sent.push(
          failing
            ? 'failing'
            : (text ?? '').split(' ')[0]! + ((text ?? '').includes('.feed ') ? ' feed' : ''),
        );
        return original(...(failing ? ['SELECT 1 / 0'] : args)).finally(() => (inFlight -= 1));
      };
    });
    const storage = await open({ pool });
    await storage.apply({
      changes: [...rows(2_000).map(added), ...rows(10).map((t) => modified({ ...t, amount: '1' }))],
      connections: [connectionState('c1')],
    });
    expect(mostInFlight).toBe(1);
    const before = await storage.lastSeq();
    const error = await storage
      .apply({ changes: rows(50, 'id:more-').map(added), accountStates: [accountState('c1', 'a1')] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '22012' }); // division_by_zero, not 25P02 (transaction aborted)
    // The first failure stops the batch: the feed insert after it is never sent, only the rollback.
    expect(sent.slice(sent.indexOf('failing'))).toEqual(['failing', 'ROLLBACK']);
    expect(mostInFlight).toBe(1);
    expect(await storage.countTransactions('c1')).toBe(2_000);
    expect(await storage.lastSeq()).toBe(before);
    expect(await storage.listAccountStates('c1')).toEqual([]);
    // The connection went back to the pool usable: the next batch commits.
    await storage.apply({ changes: rows(5, 'id:last-').map(added) });
    expect(await storage.countTransactions('c1')).toBe(2_005);
  });

  it('reports the first conflicting change of a group, in batch order', async () => {
    const storage = await open();
    await storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:3')), added(transaction('c1', 'a1', 'id:7'))],
    });
    const attempt = rows(10, 'id:').map((t, i) => added({ ...t, key: `id:${9 - i}` }));
    await expect(storage.apply({ changes: attempt })).rejects.toMatchObject({ key: 'id:7' });
    await expect(
      storage.apply({ changes: ['id:3', 'id:x', 'id:y'].map((k) => removed(transaction('c1', 'a1', k))) }),
    ).rejects.toMatchObject({ key: 'id:x', message: expect.stringMatching(/does not exist/) });
    await expect(
      storage.apply({ changes: [{ ...added(transaction('c1', 'a1', 'id:z')), record: null }] }),
    ).rejects.toBeInstanceOf(StorageConflictError);
    expect(await storage.countTransactions('c1')).toBe(2);
  });

  it('writes a batch with a small, fixed number of statements, however many rows', async () => {
    const { pool, count, reset } = countingPool();
    cleanups.push(() => pool.end());
    const storage = await open({ pool });

    reset();
    await storage.apply({ changes: rows(20, 'id:small-').map(added) });
    const small = count();

    reset();
    await storage.apply({ changes: rows(2_000).map(added) });
    // BEGIN, one INSERT … unnest for the rows, one INSERT for the feed, COMMIT.
    expect(count()).toBe(4);
    expect(small).toBe(4);
    expect(await storage.countTransactions('c1')).toBe(2_020);

    // Add-then-modify of the same keys needs a second group; connections and account states one each.
    const next = rows(2_000, 'id:next-');
    reset();
    await storage.apply({
      changes: [
        ...next.map(added),
        ...next.map((t) => modified({ ...t, amount: '0' })),
        ...rows(2_000).map(removed),
      ],
      connections: [connectionState('c1')],
      accountStates: [accountState('c1', 'a1'), accountState('c1', 'a2')],
    });
    expect(count()).toBe(8);
    expect(await storage.countTransactions('c1')).toBe(2_020);
    expect(await storage.lastSeq()).toBe(2_020 + 6_000);
  });

  it('upserting a connection state never clobbers its lease or schedule', async () => {
    const storage = await open();
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    const now = new Date('2030-01-01T00:00:00.000Z');
    expect(await storage.claimDue('w1', { limit: 1, leaseMs: 60_000, now })).toEqual(['c1']);
    const leased = await storage.listLeases();
    await storage.apply({
      changes: [],
      connections: [connectionState('c1', { status: 'paused', pausedUntil: '2030-01-01T01:00:00.000Z' })],
    });
    expect(await storage.listLeases()).toEqual(leased);
    expect(leased).toEqual([
      { connectionId: 'c1', workerId: 'w1', leaseExpiresAt: '2030-01-01T00:01:00.000Z', nextRunAt: null },
    ]);
    expect((await storage.getConnection('c1'))?.status).toBe('paused');
  });

  it('the last of repeated connection and account states in one batch wins', async () => {
    const storage = await open();
    await storage.apply({
      changes: [],
      connections: [connectionState('c1'), connectionState('c1', { statusReason: 'second' })],
      accountStates: [accountState('c1', 'a1'), accountState('c1', 'a1', { watermark: '2026-01-02' })],
    });
    expect((await storage.getConnection('c1'))?.statusReason).toBe('second');
    expect((await storage.listAccountStates('c1'))[0]?.watermark).toBe('2026-01-02');
  });

  it('lastSeq never goes backwards, and seqs are not reused, after removeConnection', async () => {
    const storage = await open();
    await storage.apply({
      changes: [added(transaction('c1', 'a1', 'id:1')), added(transaction('c2', 'a1', 'id:1'))],
    });
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:2'))] });
    expect(await storage.lastSeq()).toBe(3);
    await storage.removeConnection('c1');
    expect(await storage.lastSeq()).toBe(3);
    expect((await storage.readChanges({ limit: 10 })).map((e) => e.seq)).toEqual([2]);
    await storage.apply({ changes: [added(transaction('c1', 'a1', 'id:1'))] });
    expect(await storage.lastSeq()).toBe(4);
    await storage.removeConnection('c2');
    await storage.removeConnection('c1');
    expect(await storage.lastSeq()).toBe(4);
    expect(await storage.readChanges({ limit: 10 })).toEqual([]);
  });

  it('a reader following the feed during concurrent writes misses nothing', async () => {
    const writers = await Promise.all(
      Array.from({ length: 4 }, () => open({ schema: schemas[0] ?? freshSchemaName() })),
    );
    const reader = writers[0]!;
    const seen: FeedEntry[] = [];
    let after = 0;
    let done = false;
    const follow = (async () => {
      for (;;) {
        const finished = done;
        const page = await reader.readChanges({ after, limit: 50 });
        seen.push(...page);
        after = page.at(-1)?.seq ?? after;
        if (page.length === 0 && finished) return;
      }
    })();
    await Promise.all(
      writers.map(async (w, n) => {
        for (let b = 0; b < 15; b += 1) {
          await w.apply({ changes: rows(20, `id:w${n}-b${b}-`, `a${n}`).map(added) });
        }
      }),
    );
    done = true;
    await follow;
    const all = await reader.readChanges({ limit: 10_000 });
    expect(all).toHaveLength(4 * 15 * 20);
    expect(seen.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(await reader.lastSeq()).toBe(all.at(-1)!.seq);
    // Entries were stamped after the lock, so `at` follows seq too.
    expect(all.every((e, i) => i === 0 || e.at >= all[i - 1]!.at)).toBe(true);
  });

  it('scans large accounts in bounded chunks, in key order, across accounts', async () => {
    const storage = await open();
    const a1 = rows(2_345, 'id:', 'a1');
    const a2 = rows(10, 'id:', 'a2');
    await storage.apply({ changes: [...a2, ...a1].map(added) });
    const scanned: string[] = [];
    for await (const t of storage.scanTransactions('c1')) scanned.push(`${t.accountId}/${t.key}`);
    expect(scanned).toEqual([...a1, ...a2].map((t) => `${t.accountId}/${t.key}`));
    let count = 0;
    for await (const t of storage.scanTransactions('c1', 'a1')) if (t.accountId === 'a1') count += 1;
    expect(count).toBe(2_345);
  });

  it('readChanges honours limit edge cases and the connection filter', async () => {
    const storage = await open();
    await storage.apply({
      changes: [...rows(5).map(added), added(transaction('c2', 'a1', 'id:x'))],
    });
    expect(await storage.readChanges({ limit: 0 })).toEqual([]);
    expect(await storage.readChanges({ limit: Infinity })).toHaveLength(6);
    expect(await storage.readChanges({ limit: 2.5 })).toHaveLength(3);
    expect((await storage.readChanges({ after: 2.5, limit: 10 }))[0]?.seq).toBe(3);
    expect((await storage.readChanges({ limit: 10, connectionId: 'c2' })).map((e) => e.seq)).toEqual([6]);
    expect(await storage.readChanges({ after: 6, limit: 10, connectionId: 'c2' })).toEqual([]);
  });

  it('leaves a pool it was given open, ends one it created, and rejects calls after close', async () => {
    const given = adminPool();
    const borrowed = await open({ pool: given });
    await borrowed.close();
    await borrowed.close();
    expect((await given.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await expect(borrowed.lastSeq()).rejects.toThrow(/closed/);

    const owning = await open();
    await owning.close();
    expect(owning.pool.ended).toBe(true);
    await expect(owning.apply({ changes: [] })).rejects.toThrow(/closed/);
  });

  it('works before init(), migrating on first use', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const storage = new PostgresStorage({ connectionString: url, schema });
    cleanups.push(() => storage.close());
    expect(await storage.lastSeq()).toBe(0);
  });

  it('rejects contradictory options', () => {
    expect(() => new PostgresStorage({ pool: adminPool(), connectionString: url })).toThrow(TypeError);
    expect(() => new PostgresStorage({ migrate: 'sometimes' as 'auto' })).toThrow(TypeError);
  });
});
