/**
 * The body of `apply`: a batch written with a handful of set-based statements, whatever its size.
 * Runs inside a transaction the caller opened; any throw means the caller rolls back.
 */
import {
  LeaseLostError,
  StorageConflictError,
  type AccountSyncState,
  type Change,
  type ConnectionState,
  type WriteBatch,
} from '@finsync/sync';
import { fenceTime } from '@finsync/sync/sql';
import type { ClientBase } from 'pg';
import { codec, feedParams, toColumns, type SqlValue } from './rows.js';
import { FEED_LOCK } from './schema.js';
import type { Statements } from './sql.js';

const OPS: ReadonlySet<string> = new Set(['added', 'modified', 'removed']);

/** Consecutive changes of one entity and op that one statement can write. */
interface Group {
  entity: Change['entity'];
  op: Change['op'];
  changes: Change[];
}

function identityKey(change: Change): string {
  return codec.mirror[change.entity].identity(change).join('\u0000');
}

function conflict(change: Change, problem: string): StorageConflictError {
  return new StorageConflictError(
    `${change.entity} ${change.key} of connection ${change.connectionId} ${problem}`,
    change,
  );
}

/**
 * Splits the changes into runs of one (entity, op) in which no key repeats. Within such a run the
 * order of rows does not matter, so one set-based statement can write it; a repeated key (add then
 * modify, remove then re-add) starts a new run, which keeps the batch's order meaning.
 */
export function groupChanges(changes: readonly Change[]): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  let keys = new Set<string>();
  for (const change of changes) {
    if (!Object.hasOwn(codec.mirror, change.entity))
      throw new TypeError(`unknown entity ${JSON.stringify(change.entity)}`);
    if (!OPS.has(change.op)) throw new TypeError(`unknown change op ${JSON.stringify(change.op)}`);
    if (change.op !== 'removed' && (change.record === null || change.record === undefined)) {
      throw new StorageConflictError(`${change.op} ${change.entity} ${change.key} has no record`, change);
    }
    const key = identityKey(change);
    if (
      current === undefined ||
      current.entity !== change.entity ||
      current.op !== change.op ||
      keys.has(key)
    ) {
      current = { entity: change.entity, op: change.op, changes: [] };
      groups.push(current);
      keys = new Set();
    }
    current.changes.push(change);
    keys.add(key);
  }
  return groups;
}

const statementOf = { added: 'insert', modified: 'update', removed: 'remove' } as const;

/**
 * A group's row count fell short: some change collided. Thrown by a counted write, so that the
 * batch is rolled back and written again with `RETURNING`, which names the change.
 */
export class CountFellShort extends Error {}

/**
 * One statement of a batch with its parameters built: calling it runs it on the batch's client and
 * checks its answer, throwing what makes the batch roll back.
 */
type Prepared = () => Promise<void>;

/**
 * Prepares one group's statement. A count short of the group's size means some row existed
 * (`added`) or did not (`modified`, `removed`): the first such change, in batch order, is the one
 * reported. `counted` writes without `RETURNING` and throws `CountFellShort` instead: sending back
 * and parsing every identity was about a fifth of the storage's time on a first sync (`apply`
 * 0.68–0.84× the raw unnest loop with it, 0.90–1.08× without), and a batch that collides is rare.
 */
function prepareGroup(client: ClientBase, sql: Statements, group: Group, counted: boolean): Prepared {
  const spec = codec.mirror[group.entity];
  const statements = sql.mirror[group.entity];
  const ids = group.changes.map((change) => spec.identity(change));
  const rows =
    group.op === 'removed'
      ? ids
      : group.changes.map((change, i) => [...ids[i]!, ...spec.fields(change.record!)]);
  const width = spec.idColumns.length + (group.op === 'removed' ? 0 : spec.fieldColumns.length);
  const values = toColumns(rows, width);
  const statement = statementOf[group.op];
  if (counted) {
    return async () => {
      const result = await client.query({ text: statements.counted[statement], values });
      if (result.rowCount !== group.changes.length) throw new CountFellShort();
    };
  }
  return async () => {
    const result = await client.query<string[]>({ text: statements[statement], values, rowMode: 'array' });
    if (result.rows.length === group.changes.length) return;
    const touched = new Set(result.rows.map((row) => row.join('\u0000')));
    const missed = group.changes.find((_, i) => !touched.has(ids[i]!.join('\u0000'))) ?? group.changes[0]!;
    throw conflict(missed, group.op === 'added' ? 'already exists' : 'does not exist');
  };
}

/** A statement whose answer needs no check, its parameters built now. */
function prepareQuery(client: ClientBase, text: string, values: unknown[]): Prepared {
  return async () => {
    await client.query(text, values);
  };
}

/**
 * Runs the statements in order, one at a time on the client (pg allows one query in flight), and
 * builds each one's parameters while the one before runs on the server: the feed's record JSON, the
 * largest, is built while the server inserts the rows, instead of the server waiting for it. The
 * first failure stops the rest and is thrown.
 */
async function runInOrder(steps: ReadonlyArray<() => Prepared | undefined>): Promise<void> {
  let running: Promise<void> | undefined;
  try {
    for (const step of steps) {
      const send = step();
      if (!send) continue;
      await running;
      running = send();
    }
  } catch (error) {
    // A step that threw while building left the statement before it running: wait for it, and
    // should it fail, its error is the first failure and the one thrown (a CountFellShort there
    // means the batch is written again).
    await running;
    throw error;
  }
  await running;
}

type Fence = NonNullable<WriteBatch['fence']>;
export type FenceAnswer = { held: boolean | null };

/**
 * The fence's parameters: the connection id, the worker id and the time its lease is judged at (the
 * batch's, else now). An id PostgreSQL cannot store (U+0000) holds no lease: lost, as for any other
 * id that holds none, without a round trip.
 */
export function fenceParams({ connectionId, workerId, at }: Fence): [string, string, string] {
  if (`${connectionId}${workerId}`.includes('\u0000')) throw new LeaseLostError(connectionId, workerId);
  return [connectionId, workerId, new Date(fenceTime(at)).toISOString()];
}

/** Throws `LeaseLostError` unless the fence's answer says the lease holds (null: no such connection). */
export function ensureHeld({ connectionId, workerId }: Fence, rows: readonly FenceAnswer[]): void {
  if (rows[0]?.held !== true) throw new LeaseLostError(connectionId, workerId);
}

/** An account state's row key, for `lastById`. */
export const stateKey = (s: AccountSyncState): string => `${s.connectionId}\u0000${s.accountId}`;

/** The last state per id: one upsert statement cannot touch the same row twice, and the last wins. */
export function lastById<T>(items: readonly T[], id: (item: T) => string): T[] {
  const byId = new Map<string, T>();
  for (const item of items) {
    const key = id(item);
    byId.delete(key);
    byId.set(key, item);
  }
  return [...byId.values()];
}

export function hasWork(batch: WriteBatch): boolean {
  return (
    batch.changes.length > 0 ||
    (batch.connections?.length ?? 0) > 0 ||
    (batch.accountStates?.length ?? 0) > 0 ||
    (batch.superseded?.length ?? 0) > 0 ||
    (batch.releasedSuperseded?.length ?? 0) > 0 ||
    batch.fence !== undefined
  );
}

export async function writeBatch(
  client: ClientBase,
  sql: Statements,
  schemaKey: number,
  batch: WriteBatch,
  groups: readonly Group[],
  counted: boolean,
): Promise<void> {
  if (batch.fence) {
    const { rows } = await client.query<FenceAnswer>(sql.fence, fenceParams(batch.fence));
    ensureHeld(batch.fence, rows);
  }

  const connections = lastById<ConnectionState>(batch.connections ?? [], (c) => c.id);
  const states = lastById<AccountSyncState>(batch.accountStates ?? [], stateKey);
  const released = batch.releasedSuperseded ?? [];
  const superseded = lastById(
    batch.superseded ?? [],
    (r) => `${r.connectionId}\u0000${r.accountId}\u0000${r.key}`,
  );
  // A set-based statement over `items`, its column arrays built when its turn comes (runInOrder);
  // none when there is nothing to write.
  const setStep =
    <T>(text: string, items: readonly T[], values: (item: T) => SqlValue[], width: number) =>
    () =>
      items.length === 0 ? undefined : prepareQuery(client, text, toColumns(items.map(values), width));
  await runInOrder([
    ...groups.map((group) => () => prepareGroup(client, sql, group, counted)),
    setStep(sql.upsertConnections, connections, codec.connection.values, codec.connection.columns.length),
    setStep(sql.upsertAccountStates, states, codec.accountState.values, codec.accountState.columns.length),
    setStep(sql.releaseSuperseded, released, (r) => [r.connectionId, r.accountId, r.key], 3),
    setStep(sql.upsertSuperseded, superseded, codec.superseded.values, codec.superseded.columns.length),
    // Last, so the feed lock is held for as little as possible: from here to COMMIT.
    //
    // Why a lock at all: seqs come from an identity sequence, which hands numbers out at insert
    // time, not at commit. Without the lock, batch A could draw seqs 1-10, batch B 11-20, and B
    // commit first; a reader paging with `after` would see 11-20, move its cursor to 20, and never
    // see 1-10 once A commits. Holding one lock from drawing the first seq until commit makes
    // batches draw and commit in the same order, so once seq n is visible every lower seq is
    // visible or will never exist (a rolled-back batch leaves a gap that is never filled).
    () =>
      batch.changes.length === 0
        ? undefined
        : prepareQuery(client, sql.appendFeed, [FEED_LOCK, schemaKey, ...feedParams(batch.changes)]),
  ]);
}
