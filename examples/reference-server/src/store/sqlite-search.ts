/**
 * A search of the transaction list on SQLite, read in slices between which the server answers other
 * requests. `search` matches inside notes with `LIKE '%…%'`, whose cost grows with the notes' length
 * times the search's: one statement over a user's rows took 32.6 s for 27,000 rows of 10,000-character
 * notes, every other request waiting, and SQLite cannot stop a statement once begun. Here each slice
 * is a range of the table's rows sized to take about SLICE_MS, the slices read one snapshot (a read
 * transaction on a connection of their own, which the server's writes do not wait for in WAL mode),
 * and a request answered as timed out stops at the next slice.
 */
import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TX_COLUMNS } from './columns.js';
import type { CommitDeadline, TransactionRow } from './types.js';

/** How long one slice should block the thread, about (ms). */
const SLICE_MS = 10;
const MIN_SLICE_ROWS = 4;
/**
 * The most rows a slice reads, whatever the slices before took: a row's cost is known only once read,
 * and the worst one (10,000 characters of notes against a 200-character search) takes about 2 ms, so
 * no slice blocks much over 100 ms. Ordinary rows cost about a microsecond: the slicing adds some
 * 30 µs a slice, about 0.1 s over 100,000 rows.
 */
const MAX_SLICE_ROWS = 48;

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
 * The statement of one slice: the keys of the rows in a range of rowids that match `where`.
 * NOT INDEXED: each slice seeks its range of rows; through the user's index it would read every row of
 * the user to find those in the range, once a slice (minutes over 100,000 rows).
 */
export function sliceSql(where: string): string {
  return `SELECT t.date, t.created_at, t.id FROM app_transactions t NOT INDEXED WHERE t.rowid >= ? AND t.rowid < ? AND ${where}`;
}

/**
 * One page of the rows of `app_transactions t` matching `where` (its parameters `args`), in the
 * list's order, and how many match in all.
 */
export async function searchInSlices(
  filename: string,
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
    const { lo, hi } = db
      .prepare('SELECT min(rowid) AS lo, max(rowid) AS hi FROM app_transactions')
      .get() as {
      lo: number | null;
      hi: number | null;
    };
    const keys: Key[] = [];
    if (lo !== null && hi !== null) {
      const slice = db.prepare(sliceSql(where));
      // Small at first: a slice of rows with long notes can take a millisecond a row.
      let size = MIN_SLICE_ROWS;
      for (let from = lo; from <= hi;) {
        const to = from + size;
        const started = performance.now();
        for (const key of slice.iterate(from, to, ...args) as IterableIterator<Key>) keys.push(key);
        from = to;
        const took = performance.now() - started;
        size =
          took > SLICE_MS
            ? Math.max(MIN_SLICE_ROWS, size >> 1)
            : took < SLICE_MS / 4
              ? Math.min(MAX_SLICE_ROWS, size * 2)
              : size;
        await nextTurn();
        deadline?.ensureOpen();
      }
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
