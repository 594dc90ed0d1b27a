/**
 * A search of the transaction list on SQLite, read in slices between which the server answers other
 * requests. `search` matches inside notes with `LIKE '%…%'`, whose cost grows with the notes' length
 * times the search's: one statement over a user's rows took 32.6 s for 27,000 rows of 10,000-character
 * notes, every other request waiting, and SQLite cannot stop a statement once begun. Here each slice
 * is at most SLICE_ROWS of the user's rows, the slices read one snapshot (a read transaction on a
 * connection of their own, which the server's writes do not wait for in WAL mode), and a request
 * answered as timed out stops at the next slice.
 */
import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TX_COLUMNS } from './columns.js';
import type { CommitDeadline, TransactionRow } from './types.js';

/**
 * The rows a slice reads: a row's cost is known only once read, and the worst one (10,000 characters of
 * notes against a 200-character search) takes about 2 ms, so no slice blocks much over 100 ms. Over
 * 100,000 ordinary rows a search takes about twice one statement's time (144–207 ms against 69–91 ms,
 * measured), the rows being looked up one by one; a slice of 96 rows gained little.
 */
const SLICE_ROWS = 48;

interface Key {
  date: string;
  created_at: string;
  id: string;
}

/** As the list's `ORDER BY t.date DESC, t.created_at DESC, t.id` (BINARY: code-unit order). */
function listOrder(a: Key, b: Key): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The statement of one slice of `rows` rowids: the keys of those rows that match `where`. Each slice
 * looks its rows up by rowid, so a search reads the user's rows only, whoever else the table holds.
 * NOT INDEXED: with `t.user_id = ?` in `where` the planner may take the user's index instead and read
 * every row of the user for each slice (20 s for a search over 100,000 rows, measured).
 */
export function sliceSql(where: string, rows: number): string {
  const rowids = Array<string>(rows).fill('?').join(', ');
  return `SELECT t.date, t.created_at, t.id FROM app_transactions t NOT INDEXED WHERE t.rowid IN (${rowids}) AND ${where}`;
}

/**
 * One page of the user's rows of `app_transactions t` matching `where` (its parameters `args`), in
 * the list's order, and how many match in all.
 */
export async function searchInSlices(
  filename: string,
  userId: string,
  where: string,
  args: unknown[],
  page: { limit: number; offset: number },
  deadline?: CommitDeadline,
): Promise<{ total: number; rows: TransactionRow[] }> {
  const db = new Database(filename, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // One snapshot for every slice and the page's rows: the server may commit meanwhile.
    db.exec('BEGIN');
    // The user's rows as rowids read off their index (no row itself is read): the slices' work list.
    const rowids = db
      .prepare('SELECT rowid FROM app_transactions WHERE user_id = ?')
      .pluck()
      .all(userId) as number[];
    const keys: Key[] = [];
    const full = db.prepare(sliceSql(where, SLICE_ROWS));
    for (let from = 0; from < rowids.length; from += SLICE_ROWS) {
      const these = rowids.slice(from, from + SLICE_ROWS);
      const slice = these.length === SLICE_ROWS ? full : db.prepare(sliceSql(where, these.length));
      for (const key of slice.iterate(...these, ...args) as IterableIterator<Key>) keys.push(key);
      await nextTurn();
      deadline?.ensureOpen();
    }
    keys.sort(listOrder);
    const shown = keys.slice(page.offset, page.offset + page.limit);
    let rows: TransactionRow[] = [];
    if (shown.length > 0) {
      const byId = new Map(
        (
          db
            .prepare(
              `SELECT ${TX_COLUMNS} FROM app_transactions WHERE id IN (${shown.map(() => '?').join(', ')})`,
            )
            .all(...shown.map((k) => k.id)) as TransactionRow[]
        ).map((row) => [row.id, row]),
      );
      rows = shown.map((k) => byId.get(k.id)!);
    }
    db.exec('COMMIT');
    return { total: keys.length, rows };
  } finally {
    db.close();
  }
}
