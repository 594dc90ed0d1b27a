/**
 * Adjacent small pages diffed and committed as one window. A first sync walked in 90-day windows
 * gets a few hundred rows per response; diffed one by one, each pays its own store reads and its
 * own commit, and on SQLite the commits alone took over a quarter of the sync (every commit writes
 * each page of the indexes it touched again). Pages that tile a wider window are, together, exactly
 * what a request for that window would have answered, so the window rules (rows that vanished,
 * holds that posted) apply to the union unchanged.
 */
import { addDays } from '@finsync/internals/calendar';
import type { TransactionPage } from '@finsync/provider';

/**
 * Joins each page onto the one before while that one holds fewer than `minRows` rows, the two are
 * adjacent (the next starts the day after the previous ends), and both are complete. A page the
 * provider cut short stays alone, so its incompleteness (which keeps the diff from removing rows)
 * reaches no window beyond its own. With `emptyAlone` so does an empty page, which may be a provider's
 * passing failure (transactions.ts) and, joined, would be judged with the rows of the next. An empty
 * page is a whole answer: the pages of a long answer handed out in weeks hold weeks that have rows.
 */
export async function* coalescePages(
  pages: AsyncIterable<TransactionPage>,
  minRows: number,
  { emptyAlone = false }: { emptyAlone?: boolean } = {},
): AsyncGenerator<TransactionPage> {
  let group: TransactionPage | undefined;
  /** Whether `group` is our own copy: a page passed on unjoined is not copied. */
  let owned = false;
  for await (const page of pages) {
    if (group && joinable(group, page, minRows) && !(emptyAlone && (isEmpty(group) || isEmpty(page)))) {
      // The provider's page is not ours to change: the first join makes the group a copy.
      if (!owned) {
        group = { ...group, transactions: [...group.transactions] };
        owned = true;
      }
      for (const row of page.transactions) group.transactions.push(row);
      group.to = page.to;
      group.total = group.total !== null && page.total !== null ? group.total + page.total : null;
      continue;
    }
    if (group) yield group;
    group = page;
    owned = false;
  }
  if (group) yield group;
}

function joinable(group: TransactionPage, page: TransactionPage, minRows: number): boolean {
  return (
    group.transactions.length < minRows &&
    group.shortfall === 0 &&
    page.shortfall === 0 &&
    group.to !== null &&
    page.from !== null &&
    page.from === addDays(group.to, 1)
  );
}

const isEmpty = (page: TransactionPage) => page.transactions.length === 0;
