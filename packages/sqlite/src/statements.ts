/**
 * Every statement the storage runs, prepared once per open database (after migrations, since a
 * statement can only be prepared against tables that exist). Preparing is far slower than running,
 * so nothing on the write path prepares per row or per batch.
 */
import type Database from 'better-sqlite3';
import type { Change, TransactionQuery } from '@finsync/sync';
import { columnNames } from '@finsync/sync/sql';
import {
  accountColumns,
  accountStateColumns,
  codec,
  connectionColumns,
  feedColumns,
  holdingColumns,
  supersededColumns,
  transactionColumns,
  type Row,
  type SqlValue,
} from './rows.js';

type Params = [SqlValue[]];
type Statement<Result = unknown> = Database.Statement<Params, Result>;
/** Bound as two arrays, which better-sqlite3 binds one after the other: no third array per row. */
type PairParams = [SqlValue[], SqlValue[]];
/** The feed's columns from the change as one array, and the batch's commit time by name. */
type FeedParams = [SqlValue[], { at: string }];

/** The write side of one mirror table; each call reports how many rows it touched (0 or 1). */
export interface MirrorTable {
  insert(change: Change): number;
  update(change: Change): number;
  remove(change: Change): number;
  exists(change: Change): boolean;
}

/**
 * Prepares a statement that reads integers as numbers, whatever the handle's default: a caller's
 * handle with `defaultSafeIntegers(true)` would hand out BigInts, which the codecs do not read
 * (every row came back pending, and the feed threw on mixing BigInt with numbers).
 */
function prepare<P extends unknown[] = unknown[], R = unknown>(
  db: Database.Database,
  sql: string,
): Database.Statement<P, R> {
  return db.prepare<P, R>(sql).safeIntegers(false);
}

/** A read whose rows come as objects named by the statement's columns. */
export interface RowsStatement<R> {
  all(params: SqlValue[]): R[];
  get(params: SqlValue[]): R | undefined;
}

/**
 * Prepares a read (as `prepare` does) whose rows come as arrays (`raw`) and are named here, by a loop
 * over the statement's own column names, taken once. On Node 20 better-sqlite3 names a row's columns
 * through V8's API, looking each name up in V8's string table: reading 5,000 feed rows took 16.3 ms
 * that way against 9.7 ms this way (docs/benchmarks-history.md, forty-fifth session). The names are
 * the statement's own, so every read here selects its columns by name (no `*`: a column dropped by
 * another process would shift the names). Past about 19 columns an object built this way falls into
 * V8's slow dictionary mode (so would better-sqlite3's): a wider read wants an object literal.
 */
function prepareRows<R>(db: Database.Database, sql: string): RowsStatement<R> {
  const statement = prepare<Params, unknown[]>(db, sql).raw(true);
  const names = statement.columns().map((column) => column.name);
  const named = (values: unknown[]): R => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row as R;
  };
  return {
    all: (params) => statement.all(params).map(named),
    get: (params) => {
      const values = statement.get(params);
      return values === undefined ? undefined : named(values);
    },
  };
}

function mirrorTable(db: Database.Database, spec: (typeof codec.mirror)[Change['entity']]): MirrorTable {
  const { table } = spec;
  const idColumns = spec.idColumns.map((c) => c.name);
  const fieldColumns = spec.fieldColumns.map((c) => c.name);
  const where = idColumns.map((c) => `${c} = ?`).join(' AND ');
  const all = [...idColumns, ...fieldColumns];
  // DO NOTHING only swallows the primary-key conflict (what `added` must not hit); NOT NULL and
  // CHECK violations still throw, unlike INSERT OR IGNORE.
  const insert = prepare<PairParams>(
    db,
    `INSERT INTO ${table} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
  );
  const update = prepare<PairParams>(
    db,
    `UPDATE ${table} SET ${fieldColumns.map((c) => `${c} = ?`).join(', ')} WHERE ${where}`,
  );
  const remove: Statement = prepare<Params>(db, `DELETE FROM ${table} WHERE ${where}`);
  const exists: Statement = prepare<Params>(db, `SELECT 1 FROM ${table} WHERE ${where}`);
  // Only changes that carry a record reach insert/update (the storage checks first).
  return {
    insert: (change) => insert.run(spec.identity(change), spec.fields(change.record!)).changes,
    update: (change) => update.run(spec.fields(change.record!), spec.identity(change)).changes,
    remove: (change) => remove.run(spec.identity(change)).changes,
    exists: (change) => exists.get(spec.identity(change)) !== undefined,
  };
}

function upsert(table: string, columns: string, keyColumns: readonly string[]): string {
  const names = columns.split(', ');
  const updates = names.filter((c) => !keyColumns.includes(c)).map((c) => `${c} = excluded.${c}`);
  return (
    `INSERT INTO ${table} (${columns}) VALUES (${names.map(() => '?').join(', ')}) ` +
    `ON CONFLICT (${keyColumns.join(', ')}) DO UPDATE SET ${updates.join(', ')}`
  );
}

export class Statements {
  readonly tables: Record<Change['entity'], MirrorTable>;
  readonly appendFeed: Database.Statement<FeedParams>;
  readonly upsertConnection: Statement;
  readonly upsertAccountState: Statement;
  readonly upsertSuperseded: Statement;
  readonly releaseSuperseded: Statement;
  readonly listSuperseded: RowsStatement<Row['superseded']>;

  readonly getConnection: RowsStatement<Row['connection']>;
  readonly listConnections: RowsStatement<Row['connection']>;
  readonly listAccounts: RowsStatement<Row['account']>;
  readonly listAccountStates: RowsStatement<Row['accountState']>;
  readonly listHoldings: RowsStatement<Row['holding']>;
  readonly countConnection: Statement<number>;
  readonly countAccount: Statement<number>;

  // Keyset pagination over the primary key; the "first" variants exist because no cursor value
  // sorts before every possible key (even '' is a valid key).
  readonly scanFirst: RowsStatement<Row['transaction']>;
  readonly scanNext: RowsStatement<Row['transaction']>;
  readonly scanAccountFirst: RowsStatement<Row['transaction']>;
  readonly scanAccountNext: RowsStatement<Row['transaction']>;

  readonly feedAfter: RowsStatement<Row['feed']>;
  readonly feedAfterOfConnection: RowsStatement<Row['feed']>;
  readonly lastSeq: Statement<number>;
  readonly removeConnection: Statement[];

  readonly #db: Database.Database;
  readonly #find = new Map<string, RowsStatement<Row['transaction']>>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.tables = {
      account: mirrorTable(db, codec.mirror.account),
      transaction: mirrorTable(db, codec.mirror.transaction),
      holding: mirrorTable(db, codec.mirror.holding),
    };
    this.appendFeed = prepare<FeedParams>(
      db,
      `INSERT INTO feed (${columnNames(codec.feed.columns)}, at) ` +
        `VALUES (${codec.feed.columns.map(() => '?').join(', ')}, @at)`,
    );
    this.upsertConnection = prepare<Params>(db, upsert('connections', connectionColumns, ['id']));
    this.upsertAccountState = prepare<Params>(
      db,
      upsert('account_states', accountStateColumns, ['connection_id', 'account_id']),
    );

    this.upsertSuperseded = prepare<Params>(
      db,
      upsert('superseded_transactions', supersededColumns, ['connection_id', 'account_id', 'key']),
    );
    this.releaseSuperseded = prepare<Params>(
      db,
      'DELETE FROM superseded_transactions WHERE connection_id = ? AND account_id = ? AND key = ?',
    );
    this.listSuperseded = prepareRows<Row['superseded']>(
      db,
      `SELECT ${supersededColumns} FROM superseded_transactions ` +
        'WHERE connection_id = ? AND account_id = ? ORDER BY key',
    );

    this.getConnection = prepareRows<Row['connection']>(
      db,
      `SELECT ${connectionColumns} FROM connections WHERE id = ?`,
    );
    this.listConnections = prepareRows<Row['connection']>(
      db,
      `SELECT ${connectionColumns} FROM connections ORDER BY id`,
    );
    this.listAccounts = prepareRows<Row['account']>(
      db,
      `SELECT ${accountColumns} FROM accounts WHERE connection_id = ? ORDER BY id`,
    );
    this.listAccountStates = prepareRows<Row['accountState']>(
      db,
      `SELECT ${accountStateColumns} FROM account_states WHERE connection_id = ? ORDER BY account_id`,
    );
    this.listHoldings = prepareRows<Row['holding']>(
      db,
      `SELECT ${holdingColumns} FROM holdings WHERE connection_id = ? AND account_id = ? ORDER BY key`,
    );
    this.countConnection = prepare<Params, number>(
      db,
      'SELECT count(*) FROM transactions WHERE connection_id = ?',
    ).pluck();
    this.countAccount = prepare<Params, number>(
      db,
      'SELECT count(*) FROM transactions WHERE connection_id = ? AND account_id = ?',
    ).pluck();

    const scan = `SELECT ${transactionColumns} FROM transactions WHERE connection_id = ?`;
    this.scanFirst = prepareRows<Row['transaction']>(db, `${scan} ORDER BY account_id, key LIMIT ?`);
    this.scanNext = prepareRows<Row['transaction']>(
      db,
      `${scan} AND (account_id, key) > (?, ?) ORDER BY account_id, key LIMIT ?`,
    );
    this.scanAccountFirst = prepareRows<Row['transaction']>(
      db,
      `${scan} AND account_id = ? ORDER BY key LIMIT ?`,
    );
    this.scanAccountNext = prepareRows<Row['transaction']>(
      db,
      `${scan} AND account_id = ? AND key > ? ORDER BY key LIMIT ?`,
    );

    this.feedAfter = prepareRows<Row['feed']>(
      db,
      `SELECT ${feedColumns} FROM feed WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.feedAfterOfConnection = prepareRows<Row['feed']>(
      db,
      `SELECT ${feedColumns} FROM feed WHERE connection_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    // sqlite_sequence keeps the highest seq ever handed out, even once those entries are deleted,
    // which is what lastSeq promises (max(seq) would go backwards after removeConnection).
    this.lastSeq = prepare<Params, number>(db, "SELECT seq FROM sqlite_sequence WHERE name = 'feed'").pluck();
    this.removeConnection = [
      'DELETE FROM feed WHERE connection_id = ?',
      'DELETE FROM transactions WHERE connection_id = ?',
      'DELETE FROM holdings WHERE connection_id = ?',
      'DELETE FROM accounts WHERE connection_id = ?',
      'DELETE FROM account_states WHERE connection_id = ?',
      'DELETE FROM superseded_transactions WHERE connection_id = ?',
      'DELETE FROM connections WHERE id = ?',
    ].map((sql) => prepare<Params>(db, sql));
  }

  /**
   * The window query for this combination of filters, prepared on first use. Each combination gets
   * its own SQL (at most 12) rather than `? IS NULL OR …` terms, so the planner can use the date
   * range and, for `pending: true`, the partial index, which only matches a literal `is_pending = 1`.
   */
  findTransactions(query: TransactionQuery): RowsStatement<Row['transaction']> {
    const pending =
      query.pending === undefined ? '' : query.pending ? ' AND is_pending = 1' : ' AND is_pending = 0';
    const from = query.from === undefined ? '' : ' AND date >= ?';
    const to = query.to === undefined ? '' : ' AND date <= ?';
    const keys = query.keys === undefined ? '' : ' AND key IN (SELECT value FROM json_each(?))';
    const sql =
      `SELECT ${transactionColumns} FROM transactions WHERE connection_id = ? AND account_id = ?` +
      // By keys: `+date` keeps the planner on the primary key (a probe per key) instead of the date
      // index, whose order it would otherwise buy with a scan of the account's every row.
      `${from}${to}${keys}${pending} ORDER BY ${query.keys === undefined ? 'date' : '+date'}, key`;
    let statement = this.#find.get(sql);
    if (!statement) this.#find.set(sql, (statement = prepareRows<Row['transaction']>(this.#db, sql)));
    return statement;
  }
}
