/**
 * Size bounds on what the client sends, and on what it reads. The service states none; these are far
 * above anything real, and exist so that a runaway value (a whole file as notes, a list of every id
 * there is) is refused before it goes out, with a message that names it without repeating it, and a
 * runaway answer is refused (`InvalidResponseError`) before it fills the process's memory.
 */
export const LIMITS = {
  /** Characters (`string.length`) of any text member of a body: notes, name, external_id, … */
  text: 65_536,
  /** Ids in a body's `tag_ids`. */
  tagIds: 1_000,
  /** Characters of an id in a path (`transactions/{id}`); the service's ids are 36-character UUIDs. */
  id: 256,
  /** Characters of `list({ search })`. */
  search: 1_000,
  /** Ids in one list filter (`account_ids`, `tag_ids`, …): 100 UUIDs make a query of about 5 KB. */
  filterIds: 100,
  /**
   * Characters of a list's filters as a query string: Puma, which serves Sure, refuses a query string
   * over 10 KB (10,240 bytes); this leaves room for `page` and `per_page`.
   */
  query: 10_000,
  /** Characters of `request({ path })`. */
  path: 2_048,
  /** Characters of a request's path and query together, as sent (the last guard, for `request()`). */
  url: 32_768,
  /** Bytes of a 2xx answer's body: a page of 100 transactions is about 100 KB. */
  responseBytes: 64 * 2 ** 20,
} as const;

/** `12,345`: how messages state a bound or a size. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
