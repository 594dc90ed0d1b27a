/**
 * Turning one provider response window into changes to the mirror. Pure: given what the provider
 * sent and what is stored, it says what to add, modify and remove, which keys now stand for others
 * (`replaces` / `replacedBy`), and what to remember so a later response does not undo it. The rules
 * are written down in the package's SPEC.md ("Replacement rules").
 */
import { addDays } from '@finsync/internals/calendar';
import type {
  MirrorTransaction,
  ReplacementReason,
  SupersededReason,
  SupersededTransaction,
  TransactionChange,
} from '../model.js';
import type { TransactionRef } from '../storage/types.js';
import { makeChange, type ReplacementLink } from './changes.js';
import { settleKeys } from './identity.js';
import { sameTransaction } from './keys.js';
import {
  holdsThatMayHavePosted,
  pairAcrossAmounts,
  pairByContent,
  pairTwins,
  PENDING_MATCH_DAYS,
  RELISTED_BY_MERCHANT,
  RELISTED_WITHOUT_MERCHANT,
  REWRITTEN_HIDDEN,
} from './twins.js';

export interface WindowDiffInput {
  /** Rows the provider sent for the window, keyed by `keyTransactions`. */
  incoming: MirrorTransaction[];
  /** Stored rows dated inside the window. */
  storedInWindow: MirrorTransaction[];
  /**
   * Stored rows dated outside the window under the key of an incoming row (its date moved, or the
   * provider listed its id twice): modified in place, never added twice, and not looked at for
   * vanished rows, which is the business of the window that holds their date.
   */
  storedElsewhere?: MirrorTransaction[] | undefined;
  /** Every stored pending row of the account (the twin of a posted row may sit outside the window). */
  storedPending: readonly MirrorTransaction[];
  /** Every superseded row of the account. */
  superseded: SupersededTransaction[];
  /** The window's dates, inclusive; an open end is unbounded. */
  window: { from?: string | undefined; to?: string | undefined };
  /**
   * Whether the response was complete (no shortfall). Only then does a stored row missing from it
   * mean the provider dropped the row; otherwise nothing is removed.
   */
  complete: boolean;
  /**
   * Stored rows dated before this day are not taken for dropped when the window does not list them:
   * the read reached back to them only to see a row the bank re-dated out of the days it judges
   * (transaction-reads.ts, `REDATED_MARGIN_DAYS`). Undefined: every day of the window is judged.
   */
  judgedFrom?: string | undefined;
  /**
   * Posted rows dated before this day are not taken for dropped either (holds are): history the
   * provider no longer reaches back to (transactions.ts, `postedKeptBefore`).
   */
  keepPostedBefore?: string | undefined;
  /** Superseded holds dated before this day are forgotten: no routine re-read reaches back there. */
  forgetBefore?: string | undefined;
  /**
   * The dates of the whole read this window is one part of (default: the window alone). Links that
   * weigh every row within 8 days are only made where those days lie inside the window or past the
   * read's ends.
   */
  read?: { from?: string | undefined; to?: string | undefined } | undefined;
}

export interface WindowDiff {
  /** In the order an app should apply them: additions and modifications, then removals. */
  changes: TransactionChange[];
  /** The stored rows the changes modify or remove, by key (what the row was before). */
  previous: Map<string, MirrorTransaction>;
  /** Superseded rows to record (new, or pointing somewhere new). */
  superseded: SupersededTransaction[];
  /** Superseded rows to forget. */
  released: TransactionRef[];
  /** Listed rows the mirror does not show because another key stands for them. */
  hidden: number;
}

export function diffWindow(input: WindowDiffInput): WindowDiff {
  const stored = new Map<string, MirrorTransaction>();
  for (const row of input.storedElsewhere ?? []) stored.set(row.key, row);
  for (const row of input.storedPending) stored.set(row.key, row);
  for (const row of input.storedInWindow) stored.set(row.key, row);
  const supersededByKey = new Map(input.superseded.map((row) => [row.key, row]));
  // Holds that lapsed before any posting of theirs was listed stand for nothing: when the bank lists
  // one again, it is simply listed (and added back).
  const lapsed = input.superseded.filter((row) => row.reason === 'lapsed');
  const standing =
    lapsed.length === 0 ? input.superseded : input.superseded.filter((row) => row.reason !== 'lapsed');

  const { rows, listedSuperseded } = settleKeys(input.incoming, stored, standing);
  // A hold linked to a posting at another amount that the bank lists again beside it is shown, as
  // any hold listed beside a posting at another amount is: nothing says they are one purchase.
  const reshown = new Set<string>();
  // Built only when a superseded row is listed: a first sync's windows have none.
  const listedNow = listedSuperseded.size > 0 ? new Map(rows.map((row) => [row.key, row])) : undefined;
  for (const [key, row] of listedSuperseded) {
    const was = supersededByKey.get(key)!;
    const standIn = listedNow!.get(was.replacedBy);
    // A hold taken for re-listed (3c) that the bank lists beside the hold that took its place: two
    // purchases after all, both shown. Not a posted row taken for re-issued (1): shown beside the row
    // that took its place, it would have no link to it, and a bank whose id switch flaps (old, new,
    // both, old) would leave the user's edits on the row that goes (SPEC.md, the limit).
    const relistedBeside = was.reason === 'id-changed' && was.record.isPending && standIn !== undefined;
    const tippedBeside =
      was.reason === 'posted' && standIn !== undefined && standIn.amount !== was.record.amount;
    if (!relistedBeside && !tippedBeside) continue;
    listedSuperseded.delete(key);
    rows.push(row);
    reshown.add(key);
  }
  const incomingKeys = new Set(rows.map((row) => row.key));
  const fresh = rows.filter((row) => !stored.has(row.key));
  const kept = rows.filter((row) => stored.has(row.key));
  const vanished = new Map(
    input.complete
      ? input.storedInWindow.filter((row) => !incomingKeys.has(row.key)).map((row) => [row.key, row])
      : [],
  );
  // Rows dated before the judged days still pair (a re-issued id, a hold and its posting), but one
  // that pairs with nothing is not taken for dropped (below).
  const judged = (date: string) => input.judgedFrom === undefined || date >= input.judgedFrom;

  /** Links decided below: what an added row replaces, and what replaces a removed one. */
  const replaces = new Map<string, ReplacementLink>();
  const replacedBy = new Map<string, ReplacementLink>();
  /** Rows that take the place of a superseded one and are added although stored nowhere now. */
  const revived: MirrorTransaction[] = [];
  const superseded = new Map<string, SupersededTransaction>();
  const released = new Set<string>(reshown);
  for (const row of lapsed) if (incomingKeys.has(row.key)) released.add(row.key);
  const successorOf = (row: SupersededTransaction) => superseded.get(row.key)?.replacedBy ?? row.replacedBy;
  const supersede = (row: MirrorTransaction, by: string, reason: SupersededReason) =>
    superseded.set(row.key, supersededRecord(row, by, reason));
  // The window's ends bound what the rules that weigh 8 days around a row can see (3b, 3c).
  const reach = readReach(input.window, input.read ?? input.window);
  const repoint = (from: string, to: string) => {
    for (const row of input.superseded)
      if (!released.has(row.key) && successorOf(row) === from && row.key !== to)
        superseded.set(row.key, { ...(superseded.get(row.key) ?? row), replacedBy: to });
  };

  // 1. The bank re-issued ids: a posted row that vanished and a new one with the same content.
  // `vanished` keeps every row to remove; `linked` marks those already paired with another key.
  const linked = new Set<string>();
  const unlinked = () => [...vanished.values()].filter((row) => !linked.has(row.key));
  const idChanges = pairByContent(
    unlinked().filter((row) => !row.isPending && row.providerId !== null),
    fresh.filter((row) => !row.isPending && row.providerId !== null),
    // A vanished row that stood for a row the bank lists again reverts to it (2): it pairs with a new
    // id only when no other vanished row of its content is left. Else, with two identical purchases
    // at a bank whose ids switch back, the stand-in took the other purchase's new id, that purchase
    // was removed, and the mirror kept one of the two for good.
    new Set([...listedSuperseded.keys()].map((key) => supersededByKey.get(key)!.replacedBy)),
  );
  // A re-issued row is not a new posting: it competes for holds as a stored row does.
  const reissued = new Set<string>();
  for (const [oldKey, successor] of idChanges) {
    const old = vanished.get(oldKey)!;
    link(old.key, successor.key, 'id-changed');
    reissued.add(successor.key);
    supersede(old, successor.key, 'id-changed');
    repoint(old.key, successor.key);
  }

  // 2. A row that stood for a superseded one vanished while that one is still listed: it comes back.
  const revivals = [...listedSuperseded.entries()]
    .map(([key, row]) => ({ row, was: supersededByKey.get(key)! }))
    .sort((a, b) => rank(a.was.reason) - rank(b.was.reason) || (a.row.key < b.row.key ? -1 : 1));
  for (const { row, was } of revivals) {
    const successor = vanished.get(successorOf(was));
    if (!successor || linked.has(successor.key)) continue;
    listedSuperseded.delete(row.key);
    revived.push(row);
    link(successor.key, row.key, 'reverted');
    released.add(row.key);
    superseded.delete(row.key);
    repoint(successor.key, row.key);
  }

  // 2a. A hold hidden behind its posting that the bank lists again with its text rewritten: gone
  // under its key, back under a new one, same date and amount. The new hold is hidden behind the same
  // posting too (shown, it would stand beside its posting as a second purchase). The old record stays:
  // listed again, the old hold is absorbed as before.
  const rewrittenHidden = rewrittenHiddenHolds();
  for (const { hold, posting } of rewrittenHidden) supersede(hold, posting.key, 'posted');

  // Posted rows that already stand for a hold cannot take another.
  const claimed = new Set<string>();
  for (const row of input.superseded)
    if (!released.has(row.key) && row.reason === 'posted') claimed.add(successorOf(row));
  for (const row of superseded.values()) if (row.reason === 'posted') claimed.add(row.replacedBy);
  const available = (row: MirrorTransaction) => !row.isPending && !claimed.has(row.key);
  const freshPosted = () => fresh.filter((row) => available(row) && !reissued.has(row.key));
  const keptPosted = () => [...kept, ...fresh.filter((row) => reissued.has(row.key))].filter(available);
  // Holds paired with their posted twins, a new posting first. The postings are listed only when
  // there is a hold: most windows of a first sync have none that vanished.
  const twinsOf = (holds: MirrorTransaction[], options: { sameDay: boolean }) =>
    holds.length === 0
      ? new Map<string, MirrorTransaction>()
      : pairTwins(holds, [freshPosted(), keptPosted()], options);

  // 3. A hold that vanished, and its posted twin (new, or already stored: it arrived first).
  const vanishedHolds = unlinked().filter((row) => row.isPending);
  /** A vanished hold and its posting are one purchase. */
  const pairGone = (holdKey: string, posted: MirrorTransaction) => {
    const hold = vanished.get(holdKey)!;
    link(hold.key, posted.key, 'posted');
    claimed.add(posted.key);
    // Remembered as a claim on the posted row, so a later hold cannot take it too.
    supersede(hold, posted.key, 'posted');
  };
  for (const [holdKey, posted] of twinsOf(vanishedHolds, { sameDay: true })) pairGone(holdKey, posted);

  // 3a. A hold that lapsed in an earlier read (the bank dropped it before listing its posting), and
  // its posted twin, listed only now: the posting takes the hold's place as if both were in one read.
  const waiting = lapsed.filter((row) => !released.has(row.key));
  if (waiting.length > 0) {
    const holds = new Map(waiting.map((row) => [row.key, row.record]));
    for (const [holdKey, posted] of pairTwins([...holds.values()], [freshPosted()], { sameDay: true })) {
      link(holdKey, posted.key, 'posted');
      claimed.add(posted.key);
      supersede(holds.get(holdKey)!, posted.key, 'posted');
    }
  }

  // 3b. A hold that vanished, and a new posting of its payee at another amount (a tip, a fuel
  // pre-authorisation settled at what was pumped): linked only where nothing else can be meant.
  const goneHolds = unlinked().filter((row) => row.isPending);
  if (goneHolds.length > 0) {
    // Any hold still there could be the posting's own (one listed twice counts as a rival anyway).
    const stillThere = [...input.storedPending, ...rows, ...revived].filter(
      (row) => row.isPending && !vanished.has(row.key),
    );
    const postings = { fresh: freshPosted(), stored: [...keptPosted(), ...revived.filter(available)] };
    for (const [holdKey, posted] of pairAcrossAmounts(goneHolds, stillThere, postings, reach))
      pairGone(holdKey, posted);
  }

  // 4. A hold still listed beside its posted twin (posted on a later day) is replaced now, not
  // when the bank drops it; so
  // is a stored hold dated just before the window (whether it is still listed is the business of
  // the window that holds its date: if it is, the superseded record absorbs it there).
  /** New holds not shown because a posting already stands for them: hold key → that posting. */
  const freshHolds = new Map<string, MirrorTransaction>();
  for (const { hold, posting } of rewrittenHidden) freshHolds.set(hold.key, posting);
  const before = input.window.from;
  const earlierHolds = input.storedPending.filter(
    (row) => before !== undefined && row.date < before && !linked.has(row.key),
  );
  const holds = new Map(
    [...rows.filter((row) => row.isPending && !freshHolds.has(row.key)), ...earlierHolds].map((r) => [
      r.key,
      r,
    ]),
  );
  for (const [holdKey, posted] of twinsOf([...holds.values()], { sameDay: false })) {
    const hold = holds.get(holdKey)!;
    claimed.add(posted.key);
    supersede(hold, posted.key, 'posted');
    if (stored.has(holdKey)) {
      vanished.set(holdKey, stored.get(holdKey)!);
      link(holdKey, posted.key, 'posted');
    } else freshHolds.set(holdKey, posted);
  }

  // 3c. A hold the bank lists again with other content while it is still pending (its amount
  // updated, its text rewritten): a hold has no id, its key is made from what it says, so it comes
  // back under a new key, on its own authorisation date. The same rule as 3b, over the new holds of
  // that date: the same merchant (or, without one, the same amount), unique both ways over every hold
  // still listed. Not a hold that a posting of its payee within its 8 days could stand for, linked or
  // not (a posting is what the bank more often meant; a hold it dropped a read early is lapsed).
  const goneNow = unlinked().filter((row) => row.isPending);
  const mayHavePosted =
    goneNow.length === 0
      ? new Set<string>()
      : holdsThatMayHavePosted(goneNow, [...fresh, ...kept].filter(available));
  // A hold whose 8 days run past the window, where the read goes on: its posting may be in the next.
  const relisted = goneNow.filter(
    (row) =>
      !mayHavePosted.has(row.key) &&
      (reach.to === undefined || addDays(row.date, PENDING_MATCH_DAYS) <= reach.to),
  );
  if (relisted.length > 0) {
    const listedHolds = kept.filter((row) => row.isPending && !vanished.has(row.key));
    // Holds set aside above are no candidates, but still rivals: a new hold may be theirs as well.
    const rivals = [...listedHolds, ...goneNow.filter((row) => mayHavePosted.has(row.key))];
    // A new hold already hidden behind its posting counts too: the bank re-listed the hold and it
    // posted before this read (two days between syncs), and the posting then stands for the old hold.
    const newHolds = fresh.filter((row) => row.isPending);
    for (const kinship of [RELISTED_BY_MERCHANT, RELISTED_WITHOUT_MERCHANT]) {
      const left = relisted.filter((row) => !linked.has(row.key));
      const open = newHolds.filter((row) => !replaces.has(row.key));
      const holds = { fresh: open, stored: listedHolds };
      for (const [holdKey, successor] of pairAcrossAmounts(left, rivals, holds, reach, kinship)) {
        const posting = freshHolds.get(successor.key);
        const [to, reason] = posting
          ? [posting.key, 'posted' as const]
          : [successor.key, 'id-changed' as const];
        link(holdKey, to, reason);
        supersede(vanished.get(holdKey)!, to, reason);
        repoint(holdKey, to);
      }
    }
  }

  // Not listed, dated before the judged days, and standing for nothing listed: it may have been
  // re-dated further back, and the reads that judged its date found it there. It stays.
  for (const row of unlinked())
    if (
      !judged(row.date) ||
      (!row.isPending && input.keepPostedBefore !== undefined && row.date < input.keepPostedBefore)
    )
      vanished.delete(row.key);

  // A hold that vanished with no posting to stand for it is remembered, standing for itself, so that
  // a posting listed in a later read is still linked to it (3a).
  for (const row of unlinked()) if (row.isPending) supersede(row, row.key, 'lapsed');

  // Superseded rows that can no longer matter.
  const vanishedSuccessors = new Set(vanished.keys());
  for (const row of input.superseded) {
    if (released.has(row.key) || listedSuperseded.has(row.key)) continue;
    const inWindow =
      (input.window.from === undefined || row.record.date >= input.window.from) &&
      judged(row.record.date) &&
      (input.window.to === undefined || row.record.date <= input.window.to);
    // A lapsed hold is by its nature not listed: it goes with age, or when its posting takes it.
    const gone = input.complete && inWindow && row.reason !== 'posted' && row.reason !== 'lapsed';
    const aged = input.forgetBefore !== undefined && row.record.date < input.forgetBefore;
    // A hold whose posted row vanished in this window without a trace is gone with it.
    const orphaned = vanishedSuccessors.has(successorOf(row)) && !replacedBy.has(successorOf(row));
    if (gone || aged || orphaned) {
      released.add(row.key);
      superseded.delete(row.key);
    }
  }

  const changes: TransactionChange[] = [];
  const previous = new Map<string, MirrorTransaction>();
  for (const row of [...fresh, ...revived]) {
    if (freshHolds.has(row.key)) continue;
    changes.push(makeChange('transaction', 'added', row, replaces.get(row.key)));
  }
  for (const row of kept) {
    const before = stored.get(row.key)!;
    if (vanished.has(row.key) || sameTransaction(before, row)) continue;
    previous.set(row.key, before);
    changes.push(makeChange('transaction', 'modified', row));
  }
  for (const row of vanished.values()) {
    previous.set(row.key, row);
    changes.push(makeChange('transaction', 'removed', row, replacedBy.get(row.key)));
  }
  return {
    changes,
    previous,
    superseded: [...superseded.values()],
    released: [...released]
      .filter((key) => supersededByKey.has(key))
      .map((key) => ({
        ...scope(supersededByKey.get(key)!),
        key,
      })),
    hidden: listedSuperseded.size + freshHolds.size,
  };

  /**
   * 2a: each new hold hidden beside a hidden one, with the posting both stand behind. A hold superseded by its posting (`posted`),
   * dated in this complete window's judged days and not listed under its key while that posting is
   * listed, and a new hold listed now at the posting's amount: the same merchant (without one, any
   * text), currency, amount and date, unique both ways over every hold that vanished, is hidden or is
   * still listed that day.
   */
  function rewrittenHiddenHolds(): Array<{ hold: MirrorTransaction; posting: MirrorTransaction }> {
    if (!input.complete) return [];
    const newHolds = fresh.filter((row) => row.isPending && !replaces.has(row.key));
    if (newHolds.length === 0) return [];
    const inWindow = (date: string) =>
      (input.window.from === undefined || date >= input.window.from) &&
      (input.window.to === undefined || date <= input.window.to) &&
      judged(date);
    const candidates = input.superseded.filter(
      (row) =>
        row.reason === 'posted' &&
        row.record.isPending &&
        !released.has(row.key) &&
        !incomingKeys.has(row.key) &&
        !listedSuperseded.has(row.key) &&
        inWindow(row.record.date),
    );
    // A first sync has no superseded rows: the window's rows are not looked up at all.
    if (candidates.length === 0) return [];
    const listed = new Map(rows.map((row) => [row.key, row]));
    const hidden = candidates
      .filter((row) => listed.get(successorOf(row))?.amount === row.record.amount)
      .map((row) => row.record);
    if (hidden.length === 0) return [];
    // Every other hold that could be the new one's: shown and still listed, hidden and still listed,
    // or shown and gone now (the re-listed rule's own candidates).
    const rivals = [
      ...kept.filter((row) => row.isPending && !vanished.has(row.key)),
      ...[...listedSuperseded.values()].filter((row) => row.isPending),
      ...unlinked().filter((row) => row.isPending),
    ];
    const pairs = pairAcrossAmounts(hidden, rivals, { fresh: newHolds, stored: [] }, reach, REWRITTEN_HIDDEN);
    return [...pairs].map(([oldKey, hold]) => ({
      hold,
      posting: listed.get(successorOf(supersededByKey.get(oldKey)!))!,
    }));
  }

  function link(oldKey: string, newKey: string, reason: ReplacementReason): void {
    linked.add(oldKey);
    replacedBy.set(oldKey, { key: newKey, reason });
    // A row that takes the place of two (a re-issued id that is also a vanished hold's posting) names
    // the first decided, the row it is: every removed row still names it as its successor, so an app
    // moves each one's row to it, where a second link here gave the posting's row to the hold.
    if (!replaces.has(newKey)) replaces.set(newKey, { key: oldKey, reason });
  }
}

/** The window's ends bound what a rule that weighs 8 days around a row can see, except where the read ends there. */
function readReach(window: DateRange, read: DateRange): DateRange {
  return {
    from:
      window.from !== undefined && (read.from === undefined || window.from > read.from)
        ? window.from
        : undefined,
    to: window.to !== undefined && (read.to === undefined || window.to < read.to) ? window.to : undefined,
  };
}

type DateRange = { from?: string | undefined; to?: string | undefined };

/** Which superseded row comes back first when several stood for one vanished row. */
function rank(reason: SupersededReason): number {
  return reason === 'id-changed' ? 0 : 1;
}

/** How a row the mirror no longer shows is remembered, with the key that stands for it and why. */
export function supersededRecord(
  row: MirrorTransaction,
  replacedBy: string,
  reason: SupersededReason,
): SupersededTransaction {
  return { ...scope(row), key: row.key, record: row, replacedBy, reason };
}

function scope(row: { connectionId: string; accountId: string }) {
  return { connectionId: row.connectionId, accountId: row.accountId };
}
