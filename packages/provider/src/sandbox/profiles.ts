import type { AccountModel } from './accounts.js';
import { isOrdinary } from './accounts.js';
import { calendar } from './dates.js';
import { assignLingering } from './lingering.js';
import { assignFirstListedAmounts, assignSettledAmounts } from './settle-amounts.js';
import { Rng, hashInts } from './random.js';
import { CITIES, MEAN_ROW, PENDING_TEXT, TWIN_MEAN_MAJOR, TWIN_MERCHANTS, pickCategory } from './catalog.js';

/**
 * A transaction as the bank created it, independent of `today`. Whether it is pending, posted or a
 * vanished hold is decided later from `today`, so advancing time never rewrites history.
 */
export interface RowSeed {
  authDay: number;
  index: number;
  /** Days from authorisation to posting (0..3). */
  lag: number;
  /** A card hold that never posts: it vanishes once authDay + lag <= today. */
  hold: boolean;
  /** A card purchase (including twins); only these can linger. */
  card: boolean;
  /** Days the pending row stays listed beside its posted row (0: it vanishes when the row posts). */
  linger: number;
  /** Salary, rent, statement payments… (excluded from card statements). */
  scheduled: boolean;
  amountMinor: number;
  /** The amount listed while pending where it differs from what posts (a tip, a fuel pre-authorisation). */
  pendingAmountMinor?: number;
  /** The amount listed on the authorisation day alone, where the bank amends it the next day. */
  firstListedAmountMinor?: number;
  merchant: string | null;
  description: string | null;
  /** Banks often show a generic text while the card authorisation is open. */
  pendingDescription: string | null;
}

export interface GeneratorContext {
  /** Sum of a credit card's non-hold purchases authorised in that month (within history), minor units. */
  monthSpend(acct: AccountModel, year: number, month: number): number;
  /** Whether some holds are listed at another amount than they post at (`assignSettledAmounts`). */
  readonly holdsSettleElsewise: boolean;
  /** Whether some holds are listed at an estimate on their first day (`assignFirstListedAmounts`). */
  readonly holdsRelisted: boolean;
}

/** Salary sized to the account's spending, so current accounts hover around a plausible balance. */
function salaryMajor(acct: AccountModel, rentMajor: number): number {
  const perDay = acct.meanPerDay >= 1 ? acct.meanPerDay - 2 / 3 : acct.meanPerDay;
  const twins = acct.meanPerDay >= 1 ? (2 / 3) * TWIN_MEAN_MAJOR : 0;
  const daily = perDay * (acct.spec.currency === 'EUR' ? MEAN_ROW.eur : MEAN_ROW.other) + twins;
  return Math.max(2400, Math.round(-daily * 30.44 * 1.04 + rentMajor + 110));
}

function minorRange(acct: AccountModel, rng: Rng, lo: number, hi: number): number {
  const scale = acct.magnitude * 10 ** acct.decimals;
  return rng.int(Math.max(1, Math.round(lo * scale)), Math.max(1, Math.round(hi * scale)));
}

// Real payloads carry null, empty and whitespace-only texts; clients must cope with all three.
function blankish(
  rng: Rng,
  text: string,
  nullRate: number,
  emptyRate: number,
  spaceRate: number,
): string | null {
  const r = rng.next();
  if (r < nullRate) return null;
  if (r < nullRate + emptyRate) return '';
  if (r < nullRate + emptyRate + spaceRate) return '   ';
  return text;
}

function cardLag(rng: Rng): number {
  const r = rng.next();
  return r < 0.35 ? 0 : r < 0.7 ? 1 : r < 0.9 ? 2 : 3;
}

function spendingRow(acct: AccountModel, rng: Rng, authDay: number, index: number): RowSeed {
  const category = pickCategory(rng, acct.spec.currency === 'EUR');
  const name = rng.pick(category.merchants);
  let amountMinor = minorRange(acct, rng, category.lo, category.hi);
  let merchant: string | null = name;
  let description: string;
  let lag = cardLag(rng);
  switch (category.kind) {
    case 'cash':
      amountMinor = rng.int(1, 10) * Math.max(1, Math.round(20 * acct.magnitude)) * 10 ** acct.decimals;
      merchant = 'Cash Withdrawal';
      description = `ATM ${rng.pick(CITIES)} ${rng.int(1000, 9999)}`;
      lag = 0;
      break;
    case 'sepa': {
      const ref = `${rng.int(100000, 999999)}${rng.int(1000, 9999)}`;
      merchant = `SEPA-LASTSCHRIFT\n${name}\nEREF: ${ref} MREF: M-${rng.int(1000, 99999)}`;
      description = `Lastschrift ${name}`;
      lag = rng.int(1, 2);
      break;
    }
    case 'refund':
      description = `REFUND FROM ${name.toUpperCase()}`;
      break;
    default: {
      const template = rng.int(0, 2);
      description =
        template === 0
          ? `CARD PAYMENT TO ${name.toUpperCase()}`
          : template === 1
            ? `${name.toUpperCase()} ${rng.pick(CITIES)}`
            : `CONTACTLESS ${name.toUpperCase()}`;
    }
  }
  if (category.kind !== 'sepa') merchant = blankish(rng, merchant, 0.03, 0.01, 0);
  const finalDescription = blankish(rng, description, 0.05, 0.03, 0.02);
  const hold = lag > 0 && category.kind === 'card' && rng.chance(0.03);
  return {
    authDay,
    index,
    lag,
    hold,
    card: category.kind === 'card',
    linger: 0,
    scheduled: false,
    amountMinor: category.kind === 'refund' ? amountMinor : -amountMinor,
    merchant,
    description: finalDescription,
    pendingDescription: lag > 0 && rng.chance(0.25) ? PENDING_TEXT : finalDescription,
  };
}

type Draft = Omit<
  RowSeed,
  'authDay' | 'index' | 'hold' | 'card' | 'linger' | 'scheduled' | 'pendingDescription'
> & {
  pendingDescription?: string | null;
};

function fixed(acct: AccountModel, major: number): number {
  return Math.round(major * acct.magnitude) * 10 ** acct.decimals;
}

function scheduledDrafts(ctx: GeneratorContext, acct: AccountModel, rng: Rng, day: number): Draft[] {
  const { year, month, dayOfMonth, daysInMonth } = calendar(day);
  const out: Draft[] = [];
  const rentMajor = 900 + (acct.key % 500);
  switch (acct.profile) {
    case 'current':
      if (dayOfMonth === 1) {
        const rent = -fixed(acct, rentMajor);
        out.push({
          lag: 0,
          amountMinor: rent,
          merchant: 'Landlord Lettings Ltd',
          description: 'STANDING ORDER RENT',
        });
      }
      if (dayOfMonth === 12) {
        const amountMinor = -minorRange(acct, rng, 45, 140);
        out.push({
          lag: 1,
          amountMinor,
          merchant: 'Power & Light Energy',
          description: 'DIRECT DEBIT POWER & LIGHT',
        });
      }
      if (dayOfMonth === 18) {
        const amountMinor = -minorRange(acct, rng, 12, 35);
        out.push({
          lag: 1,
          amountMinor,
          merchant: 'Mobile Telecom',
          description: 'DIRECT DEBIT MOBILE TELECOM',
        });
      }
      if (dayOfMonth === 25) {
        const salary = salaryMajor(acct, rentMajor);
        const amountMinor = minorRange(acct, rng, salary, salary * 1.06);
        out.push({ lag: 0, amountMinor, merchant: 'ACME LTD', description: 'BGC ACME LTD SALARY' });
      }
      break;
    case 'credit-card':
      if (dayOfMonth === 5) {
        const previous = month === 1 ? { y: year - 1, m: 12 } : { y: year, m: month - 1 };
        const owed = -ctx.monthSpend(acct, previous.y, previous.m);
        if (owed > 0) {
          out.push({
            lag: 0,
            amountMinor: owed,
            merchant: null,
            description: 'PAYMENT RECEIVED - THANK YOU',
          });
        }
      }
      break;
    case 'savings':
      if (dayOfMonth === 26) {
        out.push({
          lag: 0,
          amountMinor: fixed(acct, 250),
          merchant: 'Transfer',
          description: 'TRANSFER FROM CURRENT ACCOUNT',
        });
      }
      if (dayOfMonth === daysInMonth) {
        out.push({
          lag: 0,
          amountMinor: minorRange(acct, rng, 0.4, 4),
          merchant: null,
          description: 'INTEREST PAID',
        });
      }
      break;
    case 'brokerage':
      if (dayOfMonth === 1) {
        const lag = rng.int(1, 2);
        out.push({
          lag,
          amountMinor: fixed(acct, 500),
          merchant: 'Contribution',
          description: 'ACH DEPOSIT FROM EXAMPLE BANK',
        });
      }
      if (dayOfMonth === 15 && month % 3 === 0) {
        out.push({
          lag: 0,
          amountMinor: minorRange(acct, rng, 5, 60),
          merchant: 'WIDX',
          description: 'DIVIDEND WIDX',
        });
        out.push({
          lag: 0,
          amountMinor: minorRange(acct, rng, 5, 40),
          merchant: 'GDIV',
          description: 'DIVIDEND GDIV',
        });
      }
      break;
    case 'isa':
      if (dayOfMonth === 1) {
        out.push({ lag: 0, amountMinor: fixed(acct, 200), merchant: null, description: 'ISA SUBSCRIPTION' });
      }
      break;
  }
  return out;
}

function fewRowsRow(acct: AccountModel, rng: Rng, authDay: number, index: number): RowSeed {
  const base = { authDay, index, hold: false, card: false, linger: 0, scheduled: false };
  let draft: Draft;
  if (acct.profile === 'savings') {
    const amountMinor = -rng.int(5, 50) * fixed(acct, 10);
    draft = {
      lag: rng.int(0, 1),
      amountMinor,
      merchant: 'Transfer',
      description: 'TRANSFER TO CURRENT ACCOUNT',
    };
  } else {
    const amountMinor = -minorRange(acct, rng, 0.5, 5);
    draft = { lag: 0, amountMinor, merchant: acct.spec.institutionName, description: 'ACCOUNT FEE' };
  }
  return { ...base, ...draft, pendingDescription: draft.description };
}

/** Random rows are numbered from here, so their indices never depend on the scheduled ones. */
const RANDOM_INDEX_BASE = 8;

/** The unscheduled rows of a day (purchases, twins, fees): what a card statement adds up. */
export function randomRows(seedKey: number, acct: AccountModel, day: number): RowSeed[] {
  const rows: RowSeed[] = [];
  const rng = new Rng(hashInts(seedKey, acct.key, day, 2));
  let mean = acct.meanPerDay;
  if (isOrdinary(acct.profile) && mean >= 1) {
    // A pair of identical purchases every third day; lag 3 keeps each pair pending for three days,
    // so any `today` shows at least one pair. The random count shrinks to keep the mean.
    mean -= 2 / 3;
    if ((day + acct.twinPhase) % 3 === 0) {
      const name = rng.pick(TWIN_MERCHANTS);
      const twin = {
        authDay: day,
        lag: 3,
        hold: false,
        card: true,
        linger: 0,
        scheduled: false,
        amountMinor: -minorRange(acct, rng, 1.5, 6),
        merchant: name,
        description: `CARD PAYMENT TO ${name.toUpperCase()}`,
        pendingDescription: PENDING_TEXT,
      };
      rows.push({ ...twin, index: RANDOM_INDEX_BASE }, { ...twin, index: RANDOM_INDEX_BASE + 1 });
    }
  }
  const count = rng.countAround(mean);
  for (let i = 0; i < count; i++) {
    const index = RANDOM_INDEX_BASE + rows.length;
    rows.push(
      isOrdinary(acct.profile) ? spendingRow(acct, rng, day, index) : fewRowsRow(acct, rng, day, index),
    );
  }
  return rows;
}

/** Every row authorised on `day` for `acct`: a pure function of (seed, account, day). */
export function generateDay(
  ctx: GeneratorContext,
  seedKey: number,
  acct: AccountModel,
  day: number,
): RowSeed[] {
  // Separate streams, so a card statement (which reads other days) never shifts the random rows.
  const scheduledRng = new Rng(hashInts(seedKey, acct.key, day, 1));
  const rows = scheduledDrafts(ctx, acct, scheduledRng, day).map((draft, index): RowSeed => ({
    authDay: day,
    index,
    hold: false,
    card: false,
    linger: 0,
    scheduled: true,
    ...draft,
    pendingDescription: draft.pendingDescription ?? draft.description,
  }));
  const all = rows.concat(randomRows(seedKey, acct, day));
  assignLingering(seedKey, acct, day, all);
  if (ctx.holdsSettleElsewise) assignSettledAmounts(seedKey, acct, day, all);
  if (ctx.holdsRelisted) assignFirstListedAmounts(seedKey, acct, day, all);
  return all;
}
