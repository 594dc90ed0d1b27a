/**
 * Reads whose rows are named by `prepareCachedRows` (the transaction list pages) or written by SQLite as
 * JSON by `prepareCachedJsonRow` (the PATCH's lock):
 * each row must be the object better-sqlite3 would have given, every column under its own name, in
 * the same order, in every shape of row.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TX_COLUMNS } from '../src/store/columns.js';
import { lockedFromColumns, type LockedColumns, type RelatedColumns } from '../src/store/lock-for-update.js';
import { LOCK_FOR_UPDATE, lockForUpdate } from '../src/store/sqlite-lock-for-update.js';
import {
  openDatabase,
  prepareCached,
  prepareCachedJsonRow,
  prepareCachedRows,
  type Db,
} from '../src/store/sqlite-schema.js';

describe('prepareCachedRows', () => {
  it('answers the rows better-sqlite3 answers, keys in the same order, and leaves prepareCached answering its own', () => {
    const database = new Database(':memory:');
    try {
      database.exec(
        "CREATE TABLE t (a TEXT, b INTEGER, c REAL, d BLOB); INSERT INTO t VALUES ('x', 1, 2.5, x'00'), (NULL, NULL, NULL, NULL)",
      );
      const sql = 'SELECT c, a, d, b, a AS again FROM t ORDER BY rowid';
      const named = prepareCachedRows(database, sql);
      const plain = prepareCached(database, sql);
      expect(named.all()).toEqual(plain.all());
      expect(named.all().map(Object.keys)).toEqual((plain.all() as object[]).map(Object.keys));
      expect(named.get()).toEqual(plain.get());
      expect(prepareCachedRows(database, 'SELECT a FROM t WHERE a = ?').get('none')).toBeUndefined();
      // The same SQL wanted both ways is two statements: one in raw mode would answer arrays to the other.
      expect(plain.get()).toEqual({ c: 2.5, a: 'x', d: Buffer.from([0]), b: 1, again: 'x' });
      // A literal by position, its keys checked against the statement's columns when it is prepared.
      const ab = (v: unknown[]) => ({ a: v[0], b: v[1] });
      expect(prepareCachedRows(database, 'SELECT a, b FROM t ORDER BY rowid', ab).get()).toEqual({
        a: 'x',
        b: 1,
      });
      expect(() => prepareCachedRows(database, 'SELECT b, a FROM t', ab)).toThrow(
        'the statement selects b, a, not a, b',
      );
      expect(() => prepareCachedRows(database, 'SELECT a, b, c FROM t', ab)).toThrow(
        /selects a, b, c, not a, b$/,
      );
    } finally {
      database.close();
    }
  });
});

describe('prepareCachedJsonRow', () => {
  // Text JSON must escape, text it may leave as it is, and what V8 writes for a lone surrogate.
  const AWKWARD = [
    'plain',
    'a "quoted" \\ back\\slash',
    'line\nbreak\ttab\r\u0000nul\u001f',
    'emoji 💸 and 中文',
    'separators \u2028\u2029 and \u007f\u0080\uffff',
    'lone \ud800 surrogate',
    '',
    '[1, 2]',
    'null',
  ];

  it('answers the row better-sqlite3 answers, for any text, integers and nulls, and parses JSON columns', () => {
    const database = new Database(':memory:');
    try {
      database.exec(
        'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, j TEXT) STRICT; INSERT INTO t VALUES (1, NULL, NULL, NULL), (2, \'x\', 9007199254740991, \'["q", {"k": [1, null]}]\')',
      );
      const insert = database.prepare('INSERT INTO t (id, a, b, j) VALUES (?, ?, ?, ?)');
      AWKWARD.forEach((text, i) => insert.run(10 + i, text, -i, JSON.stringify([text])));
      const sql = 'SELECT a, b, j, (SELECT count(*) FROM t) AS n FROM t WHERE id = ?';
      const named = (v: unknown[]) => ({ a: v[0], b: v[1], j: v[2], n: v[3] });
      const json = prepareCachedJsonRow(database, sql, named, ['j']);
      const plain = database.prepare(sql);
      for (const id of [1, 2, ...AWKWARD.map((_, i) => 10 + i)]) {
        const expected = plain.get(id) as { j: string | null };
        const row = json.get(id);
        expect(row).toEqual({ ...expected, j: expected.j === null ? null : JSON.parse(expected.j) });
        expect(Object.keys(row!)).toEqual(Object.keys(expected));
      }
      // A JSON column's escapes (`\\ud800` as JSON.stringify writes a lone surrogate) come back as they went in.
      AWKWARD.forEach((text, i) => expect(json.get(10 + i)?.j).toEqual([text]));
      expect(json.get(999)).toBeUndefined();
    } finally {
      database.close();
    }
  });

  it('refuses, when prepared, columns JSON would not carry exactly and names that are not the literal’s', () => {
    const database = new Database(':memory:');
    try {
      database.exec('CREATE TABLE t (a TEXT, r REAL, d BLOB) STRICT');
      const one = (v: unknown[]) => ({ a: v[0] });
      expect(() => prepareCachedJsonRow(database, 'SELECT r AS a FROM t', one)).toThrow(
        'column a is REAL, which JSON does not carry exactly',
      );
      expect(() => prepareCachedJsonRow(database, 'SELECT d AS a FROM t', one)).toThrow(/is BLOB/);
      expect(() => prepareCachedJsonRow(database, 'SELECT a, r FROM t', one)).toThrow(
        'the statement selects a, r, not a',
      );
      expect(prepareCachedJsonRow(database, 'SELECT a FROM t', one).get()).toBeUndefined();
    } finally {
      database.close();
    }
  });
});

describe('the lock and the list, against the rows better-sqlite3 names', () => {
  let db: Db;
  const now = '2026-01-01T00:00:00.000Z';

  /** A row with every column given: those named in `values`, else a value of its own (`column:table`). */
  function insert(table: string, values: Record<string, unknown>) {
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{
      name: string;
      type: string;
      notnull: number;
    }>;
    const row = columns.map(({ name, type, notnull }) =>
      name in values ? values[name] : type === 'INTEGER' ? 0 : notnull ? `${name}:${table}` : null,
    );
    db.prepare(
      `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    ).run(...row);
  }

  beforeEach(() => {
    db = openDatabase(':memory:');
    insert('app_users', { id: 'u1', created_at: now });
    insert('app_api_keys', { id: 'k1', user_id: 'u1', key_hash: Buffer.from('h'), scope: 'read_write' });
    insert('app_accounts', { id: 'a1', user_id: 'u1' });
    insert('app_categories', { id: 'c1', user_id: 'u1' });
    insert('app_merchants', { id: 'm1', user_id: 'u1' });
    insert('app_tags', { id: 'g1', user_id: 'u1', name: 'first tag' });
    insert('app_tags', { id: 'g2', user_id: 'u1', name: 'second tag' });
    // Every text column its own value (`notes:app_transactions`, `created_at:app_transactions`, …).
    insert('app_transactions', {
      id: 't1',
      user_id: 'u1',
      account_id: 'a1',
      category_id: 'c1',
      merchant_id: 'm1',
      notes: 'the "notes" \\ on\ntwo lines 💸 \u2028',
      locked: '["name"]',
      deleted_at: null,
      gone_at: null,
    });
    insert('app_transactions', {
      id: 't2',
      user_id: 'u1',
      account_id: 'a1',
      feed_key: 'second',
      external_id: 'second',
      locked: '[]',
      deleted_at: null,
      gone_at: null,
    });
    insert('app_transaction_tags', { transaction_id: 't1', tag_id: 'g2', position: 0 });
    insert('app_transaction_tags', { transaction_id: 't1', tag_id: 'g1', position: 1 });
  });

  afterEach(() => db.close());

  it('a transaction row: every column under its own name', () => {
    const sql = `SELECT ${TX_COLUMNS} FROM app_transactions ORDER BY id`;
    const named = prepareCachedRows(db, sql).all();
    expect(named).toEqual(db.prepare(sql).all());
    expect(new Set(Object.values(named[0]!)).size).toBe(TX_COLUMNS.split(', ').length);
  });

  it('the PATCH lock: the row, its key scope and what it refers to, for a full row, a bare one and none', () => {
    const asObjects = (userId: string, id: string, keyId: string | undefined) => {
      const row = db.prepare(LOCK_FOR_UPDATE).get(keyId ?? null, id, userId) as LockedColumns &
        Omit<RelatedColumns, 'tags'> & { tags: string | null };
      const related = { ...row, tags: row.tags === null ? null : JSON.parse(row.tags) } as RelatedColumns;
      return lockedFromColumns(row, related);
    };
    for (const [userId, id, keyId] of [
      ['u1', 't1', 'k1'],
      ['u1', 't1', undefined],
      ['u1', 't2', 'k1'],
      ['u1', 'none', 'k1'],
      ['u2', 't1', undefined],
    ] as const) {
      expect(lockForUpdate(db, userId, id, keyId)).toEqual(asObjects(userId, id, keyId));
    }
    const full = lockForUpdate(db, 'u1', 't1', 'k1');
    expect(full.keyScope).toBe('read_write');
    expect(full.row?.notes).toBe('the "notes" \\ on\ntwo lines 💸 \u2028');
    expect(full.related.tags.map((tag) => tag.name)).toEqual(['second tag', 'first tag']);
    expect(full.related.categories).toHaveLength(1);
    expect(full.related.merchants).toHaveLength(1);
  });
});
