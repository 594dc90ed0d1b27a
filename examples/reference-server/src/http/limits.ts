/**
 * Size bounds on every input. Far above anything real, they exist so no request can make the server
 * store or render something huge: text is refused (422) rather than cut.
 */
export const LIMITS = {
  /** A whole request body. */
  bodyBytes: 1024 * 1024,
  name: 500,
  notes: 10_000,
  externalId: 255,
  source: 64,
  /** Ids are UUIDs; anything longer is not one. */
  id: 64,
  tagIds: 100,
  tagName: 64,
  color: 32,
  /** An amount as text (the digit bounds are in input.ts). */
  amountText: 40,
  search: 200,
  /** Filter lists such as account_ids[]. */
  filterIds: 100,
  page: 100_000,
  providerKey: 512,
  baseUrl: 2048,
} as const;
