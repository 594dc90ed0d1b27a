/**
 * Pairing rows that are one purchase under two keys: a pending hold and its posted twin, or a
 * posted row and the same row under an id the bank re-issued. Pure functions over mirror records.
 */
import { addDays } from '@finsync/internals/calendar';
import type { MirrorTransaction } from '../model.js';

/** A pending row and its posted twin are within this many days (the posted date is never earlier). */
export const PENDING_MATCH_DAYS = 8;

/**
 * The first day of holds the engine still remembers on `today`: a superseded hold dated earlier is
 * forgotten, and a stored hold of an account no longer read is removed (`pendingOverlapDays` + 8 days).
 */
export function holdsForgottenBefore(today: string, tuning: { pendingOverlapDays: number }): string {
  return addDays(today, -(tuning.pendingOverlapDays + PENDING_MATCH_DAYS));
}

/** What the bank shows as the counterparty: the merchant, else the description. */
function payee(row: MirrorTransaction): string {
  return (row.merchant ?? row.description ?? '').trim().toLowerCase();
}

/**
 * Whether two rows may be one purchase as far as their currencies tell: the same currency, or one of
 * them recorded without one (listed without one while its account's was not known yet: it may be in
 * any). Group keys leave the currency out, and every pairing checks this instead. Rows of the same
 * currency are paired first; a row without one takes only what no row of a currency could take.
 */
function sameCurrency(a: MirrorTransaction, b: MirrorTransaction): boolean {
  return a.currency === b.currency || a.currency === null || b.currency === null;
}

type CurrencyRule = (a: MirrorTransaction, b: MirrorTransaction) => boolean;
const EXACT: CurrencyRule = (a, b) => a.currency === b.currency;

/** Rows that could be twins share this: same amount and payee (and currency: `sameCurrency`). */
function twinGroup(row: MirrorTransaction): string {
  return JSON.stringify([row.amount, payee(row)]);
}

/** Everything a posted row says about itself except its id and its currency (`sameCurrency`). */
export function postedContent(row: MirrorTransaction): string {
  return JSON.stringify([row.date, row.amount, row.merchant, row.description]);
}

function byDateThenKey(a: MirrorTransaction, b: MirrorTransaction): number {
  return a.date < b.date ? -1 : a.date > b.date ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Whether `posted` may be the posted twin of `hold` by their dates (both already in one twin group). */
function fitsDates(hold: MirrorTransaction, posted: MirrorTransaction, sameDay: boolean): boolean {
  return (
    (sameDay ? posted.date >= hold.date : posted.date > hold.date) &&
    posted.date <= addDays(hold.date, PENDING_MATCH_DAYS)
  );
}

/**
 * Pairs pending rows with posted twins: same amount, currency and payee, posted 0–8 days on or
 * after the pending date. A hold with exactly one candidate that has no other candidate is paired
 * with it (the twin rule, unique both ways). Where alike rows compete, the rows that could pair
 * with each other are taken as a group: with no more holds than posted rows every hold has a twin,
 * and they are paired oldest with oldest (which of two alike rows stands for which purchase does
 * not change what is shown); with more holds than posted rows at least one hold is a purchase of
 * its own and nobody can tell which, so none of the group is paired.
 *
 * `tiers` are the posted candidates in order of preference: a later tier only gets the holds an
 * earlier one left unpaired. With `sameDay: false` a posting dated the hold's own day does not
 * count: for a hold the bank still lists, that is far more often a second purchase at the same
 * price (yesterday's coffee posting today beside today's) than the hold itself. Returns pending
 * key → posted row.
 */
export function pairTwins(
  pending: readonly MirrorTransaction[],
  tiers: ReadonlyArray<readonly MirrorTransaction[]>,
  options: { sameDay: boolean },
): Map<string, MirrorTransaction> {
  const pairs = pairTwinsWhere(pending, tiers, options, EXACT, twinGroup);
  // Holds recorded without a currency, over the posted rows of any currency.
  pairLeftovers(pairs, pending, tiers, options, {
    takes: (hold) => hold.currency === null,
    currencies: sameCurrency,
    group: twinGroup,
  });
  // Holds without a merchant, over the posted rows without one, whatever their descriptions: the
  // bank's text for a hold is often its own ("Pending authorisation"), and with no merchant the
  // payee was read from it.
  pairLeftovers(pairs, pending, tiers, options, {
    takes: (hold) => !hasMerchant(hold),
    postedMay: (row) => !hasMerchant(row),
    currencies: EXACT,
    group: (row) => row.amount,
  });
  return pairs;
}

function hasMerchant(row: MirrorTransaction): boolean {
  return (row.merchant ?? '').trim() !== '';
}

/**
 * A looser pass over the holds the passes before left unpaired (`takes`), under a looser rule
 * (`currencies`, `group`), over the posted rows (`postedMay`) no pass took and no hold left to the
 * earlier rules could also be the twin of: where those compete, nobody can tell. Adds to `pairs`.
 */
function pairLeftovers(
  pairs: Map<string, MirrorTransaction>,
  pending: readonly MirrorTransaction[],
  tiers: ReadonlyArray<readonly MirrorTransaction[]>,
  options: { sameDay: boolean },
  rule: {
    takes: (hold: MirrorTransaction) => boolean;
    postedMay?: (row: MirrorTransaction) => boolean;
    currencies: CurrencyRule;
    group: (row: MirrorTransaction) => string;
  },
): void {
  const left = pending.filter((hold) => !pairs.has(hold.key));
  const loose = left.filter(rule.takes);
  if (loose.length === 0) return;
  const rivals = left.filter((hold) => !rule.takes(hold));
  const taken = new Set([...pairs.values()].map((row) => row.key));
  const rivalGroups = groupBy(rivals, twinGroup);
  const contested = (row: MirrorTransaction) =>
    rivalGroups
      .get(twinGroup(row))
      ?.some((hold) => hold.currency === row.currency && fitsDates(hold, row, options.sameDay)) ?? false;
  const open = tiers.map((tier) =>
    tier.filter((row) => !taken.has(row.key) && (rule.postedMay?.(row) ?? true) && !contested(row)),
  );
  for (const [key, row] of pairTwinsWhere(loose, open, options, rule.currencies, rule.group))
    pairs.set(key, row);
}

function pairTwinsWhere(
  pending: readonly MirrorTransaction[],
  tiers: ReadonlyArray<readonly MirrorTransaction[]>,
  { sameDay }: { sameDay: boolean },
  currencies: CurrencyRule,
  groupOf: (row: MirrorTransaction) => string,
): Map<string, MirrorTransaction> {
  const fits = (hold: MirrorTransaction, posted: MirrorTransaction, day: boolean) =>
    fitsDates(hold, posted, day) && currencies(hold, posted);
  const pairs = new Map<string, MirrorTransaction>();
  if (pending.length === 0) return pairs;
  // A posted row can only share a group with a hold of its amount: checking that first spares the
  // group key of nearly every row of a long window (holds are few).
  const holdAmounts = new Set(pending.map((row) => row.amount));
  const postedGroups = tiers.map((tier) =>
    groupBy(
      tier.filter((row) => holdAmounts.has(row.amount)),
      groupOf,
    ),
  );
  for (const [group, groupHolds] of groupBy(pending, groupOf)) {
    const byTier = postedGroups.map((tierGroups) => [...(tierGroups.get(group) ?? [])].sort(byDateThenKey));
    for (const component of components(groupHolds, byTier.flat(), (hold, row) => fits(hold, row, sameDay))) {
      if (component.holds.length > component.posted.size) continue;
      const holds = [...component.holds].sort(byDateThenKey);
      for (const tier of byTier) {
        // Taking postings in date order and giving each the open hold that closes first (all
        // windows are equally long, so the oldest) pairs as many as can be paired.
        for (const row of tier) {
          if (!component.posted.has(row.key)) continue;
          const hold = holds.find((h) => !pairs.has(h.key) && fits(h, row, sameDay));
          if (hold) pairs.set(hold.key, row);
        }
      }
      // Tier by tier, a new posting can take the only hold an older one fits, and leave another hold
      // without the twin it has: every hold that can have one gets one, new postings kept where they are
      // as far as that allows.
      const open = holds.filter((hold) => !pairs.has(hold.key));
      if (open.length > 0) {
        const postings = byTier.flat().filter((row) => component.posted.has(row.key));
        completePairs(holds, open, postings, pairs, (hold, row) => fits(hold, row, sameDay));
      }
    }
  }
  return pairs;
}

/**
 * Pairs each of the `open` holds it can by moving holds already paired (in `pairs`) to other postings
 * they fit, one chain at a time (an augmenting path): no hold paired before is left without a twin.
 * Components are a few rows, so the search is cheap; it keeps its path in an array, not on the call
 * stack, so a long chain of look-alike holds cannot overflow it. Exported for its tests.
 */
export function completePairs(
  holds: readonly MirrorTransaction[],
  open: readonly MirrorTransaction[],
  postings: readonly MirrorTransaction[],
  pairs: Map<string, MirrorTransaction>,
  fits: (hold: MirrorTransaction, posted: MirrorTransaction) => boolean,
): void {
  const holderOf = new Map<string, MirrorTransaction>();
  for (const hold of holds) {
    const posted = pairs.get(hold.key);
    if (posted) holderOf.set(posted.key, hold);
  }
  for (const hold of open) {
    const tried = new Set<string>();
    // The path so far: each hold, the next posting it looks at, and the one it would take.
    const path: Array<{ hold: MirrorTransaction; next: number; taking?: MirrorTransaction }> = [
      { hold, next: 0 },
    ];
    while (path.length > 0) {
      const step = path.at(-1)!;
      let found: MirrorTransaction | undefined;
      while (step.next < postings.length && found === undefined) {
        const row = postings[step.next++]!;
        if (tried.has(row.key) || !fits(step.hold, row)) continue;
        tried.add(row.key);
        found = row;
      }
      // No posting left for this hold: the one before it looks further.
      if (found === undefined) {
        path.pop();
        continue;
      }
      step.taking = found;
      const holder = holderOf.get(found.key);
      if (holder !== undefined) {
        path.push({ hold: holder, next: 0 });
        continue;
      }
      // A free posting: every hold on the path moves on to the posting it takes.
      for (const { hold: moving, taking } of path) {
        holderOf.set(taking!.key, moving);
        pairs.set(moving.key, taking!);
      }
      break;
    }
  }
}

/** The holds and posted rows of one twin group that are linked, directly or through others. */
function components(
  holds: readonly MirrorTransaction[],
  posted: readonly MirrorTransaction[],
  fits: (hold: MirrorTransaction, posted: MirrorTransaction) => boolean,
): Array<{ holds: MirrorTransaction[]; posted: Set<string> }> {
  const parent = holds.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const postedOf = new Map<number, Set<string>>();
  for (const row of posted) {
    const linked = holds.flatMap((hold, i) => (fits(hold, row) ? [i] : []));
    if (linked.length === 0) continue;
    const root = find(linked[0]!);
    for (const i of linked) parent[find(i)] = root;
    const keys = postedOf.get(root) ?? new Set<string>();
    keys.add(row.key);
    postedOf.set(root, keys);
  }
  const result = new Map<number, { holds: MirrorTransaction[]; posted: Set<string> }>();
  holds.forEach((hold, i) => {
    const root = find(i);
    const entry = result.get(root) ?? { holds: [], posted: new Set<string>() };
    entry.holds.push(hold);
    result.set(root, entry);
  });
  // Posted rows were filed under the root of their time; roots may have merged since.
  for (const [root, keys] of postedOf) for (const key of keys) result.get(find(root))?.posted.add(key);
  return [...result.values()];
}

/**
 * Pairs rows that vanished with new rows of exactly the same content, one to one: two genuine
 * identical purchases stay two, and a third identical new row is a new purchase. Vanished rows whose
 * keys are in `last` are paired after the others of their content. Returns vanished key → new row.
 */
export function pairByContent(
  vanished: readonly MirrorTransaction[],
  fresh: readonly MirrorTransaction[],
  last: ReadonlySet<string> = new Set(),
): Map<string, MirrorTransaction> {
  const pairs = new Map<string, MirrorTransaction>();
  if (vanished.length === 0) return pairs;
  // Only a new row of a vanished row's date and amount can have its content: a first sync's
  // hundred thousand new rows need no content key when nothing vanished near them.
  const vanishedAt = new Set(vanished.map((row) => `${row.date} ${row.amount}`));
  const candidates = groupBy(
    fresh.filter((row) => vanishedAt.has(`${row.date} ${row.amount}`)),
    postedContent,
  );
  for (const [content, rows] of groupBy(vanished, postedContent)) {
    const successors = candidates.get(content);
    if (!successors) continue;
    const young = [...successors].sort(byDateThenKey);
    const old = [...rows].sort(
      (a, b) => Number(last.has(a.key)) - Number(last.has(b.key)) || byDateThenKey(a, b),
    );
    // Same currency first; then a row without one, with what no row of a currency left unpaired
    // could also be (where those compete, nobody can tell).
    const take = (row: MirrorTransaction, at: number) => {
      pairs.set(row.key, young[at]!);
      young.splice(at, 1);
    };
    for (const row of old) {
      const at = young.findIndex((candidate) => EXACT(row, candidate));
      if (at !== -1) take(row, at);
    }
    const rivals = old.filter((row) => !pairs.has(row.key) && row.currency !== null);
    for (const row of old) {
      if (pairs.has(row.key) || row.currency !== null) continue;
      const at = young.findIndex((candidate) => !rivals.some((rival) => EXACT(rival, candidate)));
      if (at !== -1) take(row, at);
    }
  }
  return pairs;
}

/** '-' for money out, '+' for money in, '0' for neither. */
function direction(amount: string): '-' | '+' | '0' {
  return amount.startsWith('-') ? '-' : /^[0.]*$/.test(amount) ? '0' : '+';
}

/**
 * What makes two rows kin for `pairAcrossAmounts`: rows of one class (never `null`) may be one
 * purchase. `hint` is a cheaper part of the class, checked first.
 */
export interface Kinship {
  classOf: (row: MirrorTransaction) => string | null;
  hint: (row: MirrorTransaction) => string;
  /** Days on or after the hold's date a kin row may be dated (default `PENDING_MATCH_DAYS`). */
  days?: number;
}

/** The same payee and direction (money out or in), whatever the amount. */
export const SAME_PAYEE: Kinship = {
  classOf: (row) => (payee(row) === '' ? null : JSON.stringify([payee(row), direction(row.amount)])),
  hint: payee,
};

/**
 * A hold listed again by its bank: it keeps its authorisation date, so only a new hold of that date
 * is kin. Holds with a merchant, of the same merchant and direction: a payee read from a description
 * is too often the bank's own text ("Pending authorisation"), shared by unrelated holds.
 */
export const RELISTED_BY_MERCHANT: Kinship = {
  classOf: (row) => (hasMerchant(row) ? SAME_PAYEE.classOf(row) : null),
  hint: payee,
  days: 0,
};

/**
 * A hold hidden behind its posting whose text its bank rewrote (diff.ts, 2a): the same merchant
 * (without one, whatever the text), amount and date. The amount is part of the kin: a hold stays
 * hidden only at its posting's amount, and two holds of one merchant that day (a room and its
 * deposit) are told apart by it.
 */
export const REWRITTEN_HIDDEN: Kinship = {
  classOf: (row) => JSON.stringify([hasMerchant(row) ? payee(row) : null, row.amount]),
  hint: (row) => row.amount,
  days: 0,
};

/**
 * The same for holds without a merchant: the same amount and date, whatever their descriptions (a
 * bank rewrites a hold's own text while it is pending as readily as when it posts).
 */
export const RELISTED_WITHOUT_MERCHANT: Kinship = {
  classOf: (row) => (hasMerchant(row) ? null : row.amount),
  hint: (row) => row.amount,
  days: 0,
};

/**
 * Pairs holds that vanished with a new posting of the same payee at another amount: a tip added to
 * a restaurant bill, a fuel pre-authorisation settled at what was pumped, a hotel deposit. Only
 * where nothing else can be meant: same currency, payee and direction, posted 0–8 days on or after
 * the hold's date, and unique both ways over every row that could take part. The hold has no other
 * candidate posting, new or stored (a posting that already stands for a hold is not passed in), and
 * the posting has no other candidate hold, vanished or still listed. Only a new posting is paired: a
 * stored one was listed beside the hold. Rows whose 8 days reach past `reach` (the window's ends, where
 * the read goes on beyond them) are not paired: their rivals may be in another window. Returns hold
 * key → posting.
 *
 * The same rule, given new holds as `postings` and another `kinship`, finds a hold the bank lists
 * again with other content while it is still pending (diff.ts, 3c).
 */
export function pairAcrossAmounts(
  vanishedHolds: readonly MirrorTransaction[],
  listedHolds: readonly MirrorTransaction[],
  postings: { fresh: readonly MirrorTransaction[]; stored: readonly MirrorTransaction[] },
  reach: { from?: string | undefined; to?: string | undefined } = {},
  kinship: Kinship = SAME_PAYEE,
): Map<string, MirrorTransaction> {
  const pairs = new Map<string, MirrorTransaction>();
  if (vanishedHolds.length === 0) return pairs;
  // A cheap filter first, which spares the class key of nearly every posting of the window.
  const hints = new Set(vanishedHolds.map(kinship.hint));
  const { classOf, days = PENDING_MATCH_DAYS } = kinship;
  // Each class in date order, so the rows within 8 days of one row are a slice found by bisection.
  const sortedGroups = (rows: MirrorTransaction[]) => {
    const kin = rows.filter((row) => hints.has(kinship.hint(row)) && classOf(row) !== null);
    const groups = groupBy(kin, (row) => classOf(row)!);
    for (const group of groups.values()) group.sort(byDateThenKey);
    return groups;
  };
  const postingsByClass = sortedGroups([...postings.fresh, ...postings.stored]);
  const holdsByClass = sortedGroups([...vanishedHolds, ...listedHolds]);
  const freshKeys = new Set(postings.fresh.map((row) => row.key));
  for (const hold of vanishedHolds) {
    const group = classOf(hold);
    if (direction(hold.amount) === '0' || group === null) continue;
    const lastDay = addDays(hold.date, days);
    if (reach.to !== undefined && lastDay > reach.to) continue;
    const candidates = datedBetween(postingsByClass.get(group) ?? [], hold.date, lastDay).filter((row) =>
      sameCurrency(hold, row),
    );
    if (candidates.length !== 1 || !freshKeys.has(candidates[0]!.key)) continue;
    const posting = candidates[0]!;
    const firstDay = addDays(posting.date, -days);
    if (reach.from !== undefined && firstDay < reach.from) continue;
    const rivals = datedBetween(holdsByClass.get(group) ?? [], firstDay, posting.date).filter((row) =>
      sameCurrency(row, posting),
    );
    if (rivals.length === 1) pairs.set(hold.key, posting);
  }
  return pairs;
}

/** The rows of a date-sorted list dated `from`–`to`, inclusive. */
function datedBetween(rows: readonly MirrorTransaction[], from: string, to: string): MirrorTransaction[] {
  const firstAtOrAfter = (date: string, inclusive: boolean) => {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (inclusive ? rows[mid]!.date < date : rows[mid]!.date <= date) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return rows.slice(firstAtOrAfter(from, true), firstAtOrAfter(to, false));
}

/**
 * The holds of `holds` that a row of `postings` could stand for, whether or not a rule linked them:
 * one of their payee (`SAME_PAYEE`) or, for a hold without a merchant, one without a merchant at its
 * amount; the same currency, dated 0–8 days on or after the hold. Such a hold may have posted, so it
 * is not taken for re-listed.
 */
export function holdsThatMayHavePosted(
  holds: readonly MirrorTransaction[],
  postings: readonly MirrorTransaction[],
): Set<string> {
  const may = new Set<string>();
  if (holds.length === 0) return may;
  const hints = new Set(holds.flatMap((hold) => [payee(hold), hold.amount]));
  const near = postings.filter((row) => hints.has(payee(row)) || hints.has(row.amount));
  for (const hold of holds) {
    const lastDay = addDays(hold.date, PENDING_MATCH_DAYS);
    const payeeClass = SAME_PAYEE.classOf(hold);
    const kin = (row: MirrorTransaction) =>
      (payeeClass !== null && SAME_PAYEE.classOf(row) === payeeClass) ||
      (!hasMerchant(hold) && !hasMerchant(row) && row.amount === hold.amount);
    if (
      near.some((row) => row.date >= hold.date && row.date <= lastDay && sameCurrency(hold, row) && kin(row))
    )
      may.add(hold.key);
  }
  return may;
}
