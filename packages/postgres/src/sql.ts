/**
 * Every SQL statement of the storage, built once per storage for its schema. Parameters are always
 * bound; only the (validated, quoted) schema name and fixed column lists are spliced into text.
 */
import type { Change, TransactionQuery } from '@finsync/sync';
import { columnNames as names, type Column } from '@finsync/sync/sql';
import { arrayElementType, codec } from './rows.js';
import { quoteSchema } from './schema.js';

const { connection, accountState, feed, mirror, superseded } = codec;

/** `unnest($first::text[], $next::boolean[], …)`: one array parameter per column. */
function unnest(columns: readonly Column[], first = 1): string {
  return `unnest(${columns.map((c, i) => `$${first + i}::${arrayElementType(c)}[]`).join(', ')})`;
}

/** The feed's columns as `feedParams` binds them: arrays, and the records as one JSON array. */
function feedSource(first: number): string {
  const sources = feed.columns.map((c, i) =>
    c.name === 'record'
      ? `json_array_elements($${first + i}::json)`
      : `unnest($${first + i}::${arrayElementType(c)}[])`,
  );
  return `ROWS FROM (${sources.join(', ')})`;
}

/**
 * A timestamptz as the model's ISO form (`toISOString()`), formatted by the server: independent of
 * the session time zone and of any timestamp type parser installed on the client.
 */
function iso(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The three bulk statements of one mirror table. */
export interface MirrorStatements {
  /** Each returns the identities it touched, so a short count can name the change that missed. */
  insert: string;
  update: string;
  remove: string;
  /** The same statements without `RETURNING`, written first: their row count is enough until one falls short. */
  counted: { insert: string; update: string; remove: string };
}

function mirrorStatements(schema: string, spec: (typeof mirror)[Change['entity']]): MirrorStatements {
  const table = `${schema}.${spec.table}`;
  const ids = names(spec.idColumns);
  const all = [...spec.idColumns, ...spec.fieldColumns];
  // The conflict target is the primary key: a duplicate there is what `added` must not hit, while
  // any other violation (NOT NULL, CHECK) still throws.
  const insert = `INSERT INTO ${table} (${names(all)}) SELECT * FROM ${unnest(all)} ON CONFLICT (${ids}) DO NOTHING`;
  const update =
    `UPDATE ${table} AS t SET ${spec.fieldColumns.map((c) => `${c.name} = u.${c.name}`).join(', ')} ` +
    `FROM ${unnest(all)} AS u(${names(all)}) ` +
    `WHERE ${spec.idColumns.map((c) => `t.${c.name} = u.${c.name}`).join(' AND ')}`;
  const remove = `DELETE FROM ${table} WHERE (${ids}) IN (SELECT * FROM ${unnest(spec.idColumns)})`;
  return {
    insert: `${insert} RETURNING ${ids}`,
    update: `${update} RETURNING ${names(spec.idColumns, 't.')}`,
    remove: `${remove} RETURNING ${ids}`,
    counted: { insert, update, remove },
  };
}

/** Upsert that writes only `columns`: other columns of an existing row (leases!) stay as they are. */
function upsert(table: string, columns: readonly Column[], keys: readonly string[], where = ''): string {
  const updates = columns.filter((c) => !keys.includes(c.name)).map((c) => `${c.name} = excluded.${c.name}`);
  return (
    `INSERT INTO ${table} (${names(columns)}) SELECT * FROM ${unnest(columns)} ${where}` +
    `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${updates.join(', ')}`
  );
}

/** Whether `$first + 1` holds the lease of connection `$first` at `$first + 2`, the row locked until commit. */
function fenceSelect(s: string, first: number): string {
  return (
    `SELECT lease_owner = $${first + 1} AND lease_expires_at > $${first + 2}::timestamptz AS held ` +
    `FROM ${s}.connections WHERE id = $${first} FOR UPDATE`
  );
}

/**
 * `upsert`, written only while the worker's lease holds, in one statement: the fence locks the
 * connection row (as `fence` does in a batch's transaction) and the rows go in only when it holds.
 * Answers one row, `held` (null for a connection that is not stored). The fence's parameters follow
 * the columns': the connection id, the worker id, the time the lease is judged at.
 */
function fencedUpsert(s: string, table: string, columns: readonly Column[], keys: readonly string[]): string {
  return (
    `WITH fence AS MATERIALIZED (${fenceSelect(s, columns.length + 1)}), ` +
    `written AS (${upsert(table, columns, keys, 'WHERE (SELECT held FROM fence) ')}) ` +
    // `written` runs to its end whether or not this reads it (as every data-modifying WITH does).
    'SELECT (SELECT held FROM fence) AS held'
  );
}

const connectionSelect = names(connection.columns);
const transactionSelect = names([...mirror.transaction.idColumns, ...mirror.transaction.fieldColumns]);
const feedSelect =
  'seq, connection_id, account_id, entity, op, key, record::text AS record, replaces, replaced_by, ' +
  `link_flags, reason, ${iso('at')} AS at`;
/** `$2::timestamptz + $3 ms`, for lease expiry times. */
const leaseUntil = (now: string, ms: string) =>
  `${now}::timestamptz + ${ms}::float8 * interval '1 millisecond'`;

export function buildStatements(schemaName: string) {
  const s = quoteSchema(schemaName);
  const scan = `SELECT ${transactionSelect} FROM ${s}.transactions WHERE connection_id = $1`;
  const find = new Map<string, string>();
  return {
    mirror: {
      account: mirrorStatements(s, mirror.account),
      transaction: mirrorStatements(s, mirror.transaction),
      holding: mirrorStatements(s, mirror.holding),
    },
    upsertConnections: upsert(`${s}.connections`, connection.columns, ['id']),
    upsertAccountStates: upsert(`${s}.account_states`, accountState.columns, ['connection_id', 'account_id']),
    fencedUpsertConnections: fencedUpsert(s, `${s}.connections`, connection.columns, ['id']),
    fencedUpsertAccountStates: fencedUpsert(s, `${s}.account_states`, accountState.columns, [
      'connection_id',
      'account_id',
    ]),
    upsertSuperseded: upsert(`${s}.superseded_transactions`, superseded.columns, [
      'connection_id',
      'account_id',
      'key',
    ]),
    releaseSuperseded:
      `DELETE FROM ${s}.superseded_transactions WHERE (connection_id, account_id, key) IN ` +
      `(SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
    listSuperseded:
      `SELECT ${names(superseded.columns)} FROM ${s}.superseded_transactions ` +
      'WHERE connection_id = $1 AND account_id = $2 ORDER BY key',

    // Locks the connection row until commit: while the batch commits, no claimer can take the lease
    // over (claimDue skips locked rows) and no release or renewal can slip in between.
    // The lease's end is judged by the worker's clock, as claimDue and renewLease set it: by the
    // database's, a worker whose clock runs behind could renew its lease but never commit under it.
    fence: fenceSelect(s, 1),

    // Feed seqs must become visible in seq order (why: see writeBatch in write.ts), so appending holds a
    // transaction-scoped advisory lock from before the first seq is drawn until commit. Taking it in
    // the same statement as the insert saves a round trip inside that window: every inserted row
    // is joined with the lock row, so the lock is held before any seq is drawn. `at` is read after
    // the lock too, so it also increases with seq. Then the head row records the highest seq.
    // The records come as one JSON array (rows.ts, `feedParams`): a JSON null there is a removal's
    // SQL NULL.
    appendFeed:
      `WITH feed_lock AS MATERIALIZED (SELECT pg_advisory_xact_lock($1::int4, $2::int4), clock_timestamp() AS at), ` +
      `appended AS (INSERT INTO ${s}.feed (${names(feed.columns)}, at) ` +
      `SELECT ${feed.columns.map((c) => (c.name === 'record' ? `CASE WHEN json_typeof(u.record) = 'null' THEN NULL ELSE u.record END` : `u.${c.name}`)).join(', ')}, ` +
      `feed_lock.at FROM feed_lock, ${feedSource(3)} WITH ORDINALITY AS u(${names(feed.columns)}, ord) ` +
      `ORDER BY u.ord RETURNING seq) ` +
      `UPDATE ${s}.feed_head SET last_seq = GREATEST(last_seq, (SELECT max(seq) FROM appended))`,

    getConnection: `SELECT ${connectionSelect} FROM ${s}.connections WHERE id = $1`,
    listConnections: `SELECT ${connectionSelect} FROM ${s}.connections ORDER BY id`,
    listAccounts: `SELECT * FROM ${s}.accounts WHERE connection_id = $1 ORDER BY id`,
    listAccountStates:
      `SELECT ${names(accountState.columns)} FROM ${s}.account_states ` +
      'WHERE connection_id = $1 ORDER BY account_id',
    listHoldings: `SELECT * FROM ${s}.holdings WHERE connection_id = $1 AND account_id = $2 ORDER BY key`,
    countConnection: `SELECT count(*) AS n FROM ${s}.transactions WHERE connection_id = $1`,
    countAccount: `SELECT count(*) AS n FROM ${s}.transactions WHERE connection_id = $1 AND account_id = $2`,

    // Keyset pagination over the primary key; the "first" variants exist because no cursor value
    // sorts before every possible key (even '' is a valid key).
    scanFirst: `${scan} ORDER BY account_id, key LIMIT $2`,
    scanNext: `${scan} AND (account_id, key) > ($2, $3) ORDER BY account_id, key LIMIT $4`,
    scanAccountFirst: `${scan} AND account_id = $2 ORDER BY key LIMIT $3`,
    scanAccountNext: `${scan} AND account_id = $2 AND key > $3 ORDER BY key LIMIT $4`,

    feedAfter: `SELECT ${feedSelect} FROM ${s}.feed WHERE seq > $1 ORDER BY seq LIMIT $2`,
    feedAfterOfConnection: `SELECT ${feedSelect} FROM ${s}.feed WHERE connection_id = $3 AND seq > $1 ORDER BY seq LIMIT $2`,
    lastSeq: `SELECT last_seq FROM ${s}.feed_head`,

    // A removal is two statements in one transaction. The connection row goes first: that waits
    // for a worker's batch holding it (see fence) to commit, and keeps the next batch's fence
    // out. The rows go in a second statement, whose snapshot is taken after that wait, so it sees
    // (and removes) what that batch wrote; one statement's snapshot would predate it.
    removeConnectionRow: `DELETE FROM ${s}.connections WHERE id = $1`,
    removeConnectionData:
      `WITH f AS (DELETE FROM ${s}.feed WHERE connection_id = $1), ` +
      `t AS (DELETE FROM ${s}.transactions WHERE connection_id = $1), ` +
      `h AS (DELETE FROM ${s}.holdings WHERE connection_id = $1), ` +
      `a AS (DELETE FROM ${s}.accounts WHERE connection_id = $1), ` +
      `st AS (DELETE FROM ${s}.account_states WHERE connection_id = $1) ` +
      `DELETE FROM ${s}.superseded_transactions WHERE connection_id = $1`,

    // SKIP LOCKED makes concurrent claimers pass over each other's rows instead of queueing on them,
    // and a row committed by another claimer after this statement's snapshot is re-checked against
    // the WHERE clause when locked, so no connection is handed out twice.
    claimDue:
      `WITH claimed AS (UPDATE ${s}.connections SET lease_owner = $1, lease_expires_at = ${leaseUntil('$2', '$3')} ` +
      `WHERE id IN (SELECT id FROM ${s}.connections ` +
      `WHERE status <> 'reauth_required' ` +
      `AND (status <> 'paused' OR paused_until IS NULL OR paused_until::timestamptz <= $2::timestamptz) ` +
      `AND COALESCE(next_run_at, '-infinity') <= $2::timestamptz ` +
      `AND (lease_owner IS NULL OR lease_expires_at <= $2::timestamptz) ` +
      `ORDER BY COALESCE(next_run_at, '-infinity'), id LIMIT $4 FOR UPDATE SKIP LOCKED) ` +
      'RETURNING id, next_run_at) ' +
      "SELECT id FROM claimed ORDER BY COALESCE(next_run_at, '-infinity'), id",
    renewLease:
      `UPDATE ${s}.connections SET lease_expires_at = ${leaseUntil('$3', '$4')} ` +
      'WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > $3::timestamptz',
    releaseLease:
      `UPDATE ${s}.connections SET lease_owner = NULL, lease_expires_at = NULL, next_run_at = $3::timestamptz ` +
      'WHERE id = $1 AND lease_owner = $2',
    revokeLease:
      `UPDATE ${s}.connections SET lease_owner = NULL, lease_expires_at = NULL, next_run_at = $2::timestamptz ` +
      'WHERE id = $1',
    listLeases:
      `SELECT id, lease_owner, ${iso('lease_expires_at')} AS lease_expires_at, ` +
      `${iso('next_run_at')} AS next_run_at FROM ${s}.connections ORDER BY id`,

    /**
     * The window query for this combination of filters (at most 12, built on first use). Each gets
     * its own SQL rather than `$n IS NULL OR …` terms, so the planner can use the date range and,
     * for `pending: true`, the partial index, which only matches a literal `is_pending`.
     */
    findTransactions(query: TransactionQuery): string {
      let n = 2;
      const from = query.from === undefined ? '' : ` AND date >= $${(n += 1)}`;
      const to = query.to === undefined ? '' : ` AND date <= $${(n += 1)}`;
      const keys = query.keys === undefined ? '' : ` AND key = ANY($${(n += 1)}::text[])`;
      const pending =
        query.pending === undefined ? '' : query.pending ? ' AND is_pending' : ' AND NOT is_pending';
      const cacheKey = `${from}|${to}|${keys}|${pending}`;
      let sql = find.get(cacheKey);
      if (sql === undefined) {
        sql =
          `SELECT ${transactionSelect} FROM ${s}.transactions WHERE connection_id = $1 AND account_id = $2` +
          `${from}${to}${keys}${pending} ORDER BY date, key`;
        find.set(cacheKey, sql);
      }
      return sql;
    },
  };
}

export type Statements = ReturnType<typeof buildStatements>;
