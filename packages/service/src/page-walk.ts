/**
 * What a page-by-page walk checks in the server's own account of its pages, so that a misbehaving
 * server ends a walk with an error instead of ending it early without one (rows skipped) or never
 * ending it (rows repeated forever). Internal.
 */
import { InvalidResponseError } from './errors.js';
import type { Pagination } from './schemas.js';

/**
 * Pages in a row that bring no row the page before them did not. One such page is normal (rows
 * added at the head of the list between two requests push the last page's rows onto the next); a
 * server answering one page forever is caught after this many.
 */
export const MAX_PAGES_WITHOUT_NEW_ROWS = 3;

export class PageWalk {
  readonly #path: string;
  #previousIds: ReadonlySet<string> = new Set();
  #pagesWithoutNewRows = 0;

  /** `path`: the route walked, for the error's message (`/api/v1/transactions`). */
  constructor(path: string) {
    this.#path = path;
  }

  /**
   * Whether the answer to `page` is the service's past-the-end one, which ends the walk: Sure answers a
   * page past the last with the last page (Pagy's `overflow: :last_page`) and says so in
   * `pagination.page`. An earlier page given for one the server itself counts among its pages
   * contradicts itself: rows would be skipped without a word, so it throws `InvalidResponseError`.
   */
  pastTheEnd(page: number, pagination: Pagination | null): boolean {
    if (!pagination || pagination.page >= page) return false;
    if (pagination.page >= pagination.total_pages) return true;
    throw this.#inconsistent(
      `page ${page} was answered as page ${pagination.page} of ${pagination.total_pages}`,
    );
  }

  /** Notes a page's row ids; throws once `MAX_PAGES_WITHOUT_NEW_ROWS` pages in a row brought none new. */
  rows(page: number, ids: readonly string[]): void {
    const seen = this.#previousIds;
    const anyNew = ids.length === 0 || ids.some((id) => !seen.has(id));
    this.#pagesWithoutNewRows = anyNew ? 0 : this.#pagesWithoutNewRows + 1;
    this.#previousIds = new Set(ids);
    if (this.#pagesWithoutNewRows >= MAX_PAGES_WITHOUT_NEW_ROWS)
      throw this.#inconsistent(
        `pages ${page - MAX_PAGES_WITHOUT_NEW_ROWS + 1}–${page} repeat the rows of the page before them`,
      );
  }

  #inconsistent(what: string): InvalidResponseError {
    return new InvalidResponseError(`inconsistent pagination from GET ${this.#path}: ${what}`, {
      method: 'GET',
      path: this.#path,
    });
  }
}
