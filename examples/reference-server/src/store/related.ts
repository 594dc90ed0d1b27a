/** What rendering transactions refers to, read by either store. */
import { steps, type Steps } from './steps.js';
import type { RelatedReads, RelatedRows, TransactionRow } from './types.js';

const distinct = (values: Array<string | null>) => [
  ...new Set(values.filter((v): v is string => v !== null)),
];

/** What `rows` refer to: one read per kind (asked for together), none for a kind no row uses. */
export function* readRelated(reads: RelatedReads, rows: TransactionRow[]): Steps<RelatedRows> {
  const [accounts, categories, merchants, tags] = yield* steps<
    [RelatedRows['accounts'], RelatedRows['categories'], RelatedRows['merchants'], RelatedRows['tags']]
  >([
    reads.accountsByIds(distinct(rows.map((r) => r.account_id))),
    reads.categoriesByIds(distinct(rows.map((r) => r.category_id))),
    reads.merchantsByIds(distinct(rows.map((r) => r.merchant_id))),
    reads.tagsOfTransactions(rows.map((r) => r.id)),
  ]);
  return { accounts, categories, merchants, tags };
}

/** What no row refers to. */
export function noRelated(): RelatedRows {
  return { accounts: [], categories: [], merchants: [], tags: [] };
}
