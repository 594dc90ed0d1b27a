/**
 * Every statement the storage runs, prepared once per open database (after migrations, since a
 * statement can only be prepared against tables that exist). Preparing is far slower than running,
 * so nothing on the write path prepares per row or per batch.
 */
import type Database from 'better-sqlite3';
import type { Change, TransactionQuery } from '@finsync/sync';
import { columnNames } from '@finsync/sync/sql';
import {
  accountStateColumns,
  codec,
  connectionColumns,
  feedColumns,
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

function mirrorTable(db: Database.Database, spec: (typeof codec.mirror)[Change['entity']]): MirrorTable {
  const { table } = spec;
  const idColumns = spec.idColumns.map((c) => c.name);
  const fieldColumns = spec.fieldColumns.map((c) => c.name);
  const where = idColumns.map((c) => `${c} = ?`).join(' AND ');
  const all = [...idColumns, ...fieldColumns];
  // DO NOTHING only swallows the primary-key conflict (what `added` must not hit); NOT NULL and
  // CHECK violations still throw, unlike INSERT OR IGNORE.
  const insert = db.prepare<PairParams>(
    `INSERT INTO ${table} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
  );
  const update = db.prepare<PairParams>(
    `UPDATE ${table} SET ${fieldColumns.map((c) => `${c} = ?`).join(', ')} WHERE ${where}`,
  );
  const remove: Statement = db.prepare<Params>(`DELETE FROM ${table} WHERE ${where}`);
  const exists: Statement = db.prepare<Params>(`SELECT 1 FROM ${table} WHERE ${where}`);
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
  readonly listSuperseded: Statement<Row['superseded']>;

  readonly getConnection: Statement<Row['connection']>;
  readonly listConnections: Statement<Row['connection']>;
  readonly listAccounts: Statement<Row['account']>;
  readonly listAccountStates: Statement<Row['accountState']>;
  readonly listHoldings: Statement<Row['holding']>;
  readonly countConnection: Statement<number>;
  readonly countAccount: Statement<number>;

  // Keyset pagination over the primary key; the "first" variants exist because no cursor value
  // sorts before every possible key (even '' is a valid key).
  readonly scanFirst: Statement<Row['transaction']>;
  readonly scanNext: Statement<Row['transaction']>;
  readonly scanAccountFirst: Statement<Row['transaction']>;
  readonly scanAccountNext: Statement<Row['transaction']>;

  readonly feedAfter: Statement<Row['feed']>;
  readonly feedAfterOfConnection: Statement<Row['feed']>;
  readonly lastSeq: Statement<number>;
  readonly removeConnection: Statement[];

  readonly #db: Database.Database;
  readonly #find = new Map<string, Statement<Row['transaction']>>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.tables = {
      account: mirrorTable(db, codec.mirror.account),
      transaction: mirrorTable(db, codec.mirror.transaction),
      holding: mirrorTable(db, codec.mirror.holding),
    };
    this.appendFeed = db.prepare<FeedParams>(
      `INSERT INTO feed (${columnNames(codec.feed.columns)}, at) ` +
        `VALUES (${codec.feed.columns.map(() => '?').join(', ')}, @at)`,
    );
    this.upsertConnection = db.prepare<Params>(upsert('connections', connectionColumns, ['id']));
    this.upsertAccountState = db.prepare<Params>(
      upsert('account_states', accountStateColumns, ['connection_id', 'account_id']),
    );

    this.upsertSuperseded = db.prepare<Params>(
      upsert('superseded_transactions', supersededColumns, ['connection_id', 'account_id', 'key']),
    );
    this.releaseSuperseded = db.prepare<Params>(
      'DELETE FROM superseded_transactions WHERE connection_id = ? AND account_id = ? AND key = ?',
    );
    this.listSuperseded = db.prepare<Params, Row['superseded']>(
      `SELECT ${supersededColumns} FROM superseded_transactions ` +
        'WHERE connection_id = ? AND account_id = ? ORDER BY key',
    );

    this.getConnection = db.prepare<Params, Row['connection']>(
      `SELECT ${connectionColumns} FROM connections WHERE id = ?`,
    );
    this.listConnections = db.prepare<Params, Row['connection']>(
      `SELECT ${connectionColumns} FROM connections ORDER BY id`,
    );
    this.listAccounts = db.prepare<Params, Row['account']>(
      'SELECT * FROM accounts WHERE connection_id = ? ORDER BY id',
    );
    this.listAccountStates = db.prepare<Params, Row['accountState']>(
      `SELECT ${accountStateColumns} FROM account_states WHERE connection_id = ? ORDER BY account_id`,
    );
    this.listHoldings = db.prepare<Params, Row['holding']>(
      'SELECT * FROM holdings WHERE connection_id = ? AND account_id = ? ORDER BY key',
    );
    this.countConnection = db
      .prepare<Params, number>('SELECT count(*) FROM transactions WHERE connection_id = ?')
      .pluck();
    this.countAccount = db
      .prepare<Params, number>('SELECT count(*) FROM transactions WHERE connection_id = ? AND account_id = ?')
      .pluck();

    const scan = `SELECT ${transactionColumns} FROM transactions WHERE connection_id = ?`;
    this.scanFirst = db.prepare<Params, Row['transaction']>(`${scan} ORDER BY account_id, key LIMIT ?`);
    this.scanNext = db.prepare<Params, Row['transaction']>(
      `${scan} AND (account_id, key) > (?, ?) ORDER BY account_id, key LIMIT ?`,
    );
    this.scanAccountFirst = db.prepare<Params, Row['transaction']>(
      `${scan} AND account_id = ? ORDER BY key LIMIT ?`,
    );
    this.scanAccountNext = db.prepare<Params, Row['transaction']>(
      `${scan} AND account_id = ? AND key > ? ORDER BY key LIMIT ?`,
    );

    this.feedAfter = db.prepare<Params, Row['feed']>(
      `SELECT ${feedColumns} FROM feed WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.feedAfterOfConnection = db.prepare<Params, Row['feed']>(
      `SELECT ${feedColumns} FROM feed WHERE connection_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    // sqlite_sequence keeps the highest seq ever handed out, even once those entries are deleted,
    // which is what lastSeq promises (max(seq) would go backwards after removeConnection).
    this.lastSeq = db.prepare<Params, number>("SELECT seq FROM sqlite_sequence WHERE name = 'feed'").pluck();
    this.removeConnection = [
      'DELETE FROM feed WHERE connection_id = ?',
      'DELETE FROM transactions WHERE connection_id = ?',
      'DELETE FROM holdings WHERE connection_id = ?',
      'DELETE FROM accounts WHERE connection_id = ?',
      'DELETE FROM account_states WHERE connection_id = ?',
      'DELETE FROM superseded_transactions WHERE connection_id = ?',
      'DELETE FROM connections WHERE id = ?',
    ].map((sql) => db.prepare<Params>(sql));
  }

  /**
   * The window query for this combination of filters, prepared on first use. Each combination gets
   * its own SQL (at most 12) rather than `? IS NULL OR …` terms, so the planner can use the date
   * range and, for `pending: true`, the partial index, which only matches a literal `is_pending = 1`.
   */
  findTransactions(query: TransactionQuery): Statement<Row['transaction']> {
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
    if (!statement) this.#find.set(sql, (statement = this.#db.prepare<Params, Row['transaction']>(sql)));
    return statement;
  }
}
