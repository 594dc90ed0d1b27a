/**
 * The one case no importer can get right from what a bank lists (packages/sync/SPEC.md, "What no
 * rule can know"): a purchase still pending, and a later purchase at the same price and payee that
 * posted at once (no pending phase). Together they look exactly like a hold lingering beside its
 * posted twin, so the engine hides the hold behind that posting until its own posting arrives.
 * Tests that compare what is shown with the sandbox's ground truth excuse exactly this case.
 */

/** A row as the twin rule sees it. */
export interface TwinRuleRow {
  /** YYYY-MM-DD: the authorisation day of a pending row, the posting day of a posted one. */
  date: string;
  pending: boolean;
  /** Amount, currency and payee, as one value that is equal for rows the twin rule could pair. */
  lookalike: string;
}

/** A posted row pairs with a hold dated at most this many days before it (as Sure's importer). */
const TWIN_DAYS = 8;

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
}

/**
 * Of the pending rows the sandbox lists (none lingering) that are not shown, those a shown posted
 * row could stand for as their twin: same `lookalike`, posted 1–8 days after the hold, each posted
 * row standing for at most one hold, oldest hold first. What it does not return is a lost row.
 */
export function holdsTakenForLaterTwins<T extends TwinRuleRow>(
  missing: readonly T[],
  shown: readonly TwinRuleRow[],
): T[] {
  const standIns = shown.filter((row) => !row.pending);
  const used = new Set<TwinRuleRow>();
  return [...missing]
    .filter((row) => row.pending)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    .filter((hold) => {
      const twin = standIns.find((posted) => {
        const days = daysBetween(hold.date, posted.date);
        return !used.has(posted) && posted.lookalike === hold.lookalike && days >= 1 && days <= TWIN_DAYS;
      });
      if (twin) used.add(twin);
      return twin !== undefined;
    });
}
