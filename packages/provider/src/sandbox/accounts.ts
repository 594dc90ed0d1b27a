import { requireDay } from './dates.js';
import { currencyDecimals, currencyMagnitude, formatMinor, parseMinor } from './money.js';
import { hashInts, hashString } from './random.js';

/** The status a sandbox account reports in `/accounts`: the three the provider documents. */
export type SandboxAccountStatus = 'ACTIVE' | 'DISCONNECTED' | 'ERROR';
const ACCOUNT_STATUSES: readonly string[] = [
  'ACTIVE',
  'DISCONNECTED',
  'ERROR',
] satisfies SandboxAccountStatus[];

/**
 * Drives what an account's history looks like. `current` and `credit-card` are the "ordinary"
 * accounts that get `transactionsPerDay`; the others have a handful of rows a month.
 */
export type SandboxAccountProfile = 'current' | 'savings' | 'credit-card' | 'brokerage' | 'isa';

/**
 * One account of the sandbox, for `SandboxOptions.accounts`: what `/accounts` lists and what its history
 * looks like. Only `id`, `name`, `institutionName`, `provider` and `currency` are required.
 */
export interface SandboxAccountSpec {
  /** Integer id, sent as a JSON number like the real API. */
  id: number;
  /** The account name shown in `/accounts`. */
  name: string;
  /** The bank's name, sent as `institution_name`. */
  institutionName: string;
  /** Omitted → the `/accounts` entry has no `institution_logo` key; null → `"institution_logo": null`. */
  institutionLogo?: string | null;
  /** The upstream aggregator's name, sent as `provider` (e.g. `'gocardless'`). */
  provider: string;
  /** Authoritative currency, always present in `/balance` and on every transaction. */
  currency: string;
  /** Default true; false → the `/accounts` entry has no `currency` key (common on the real API). */
  listCurrency?: boolean;
  /** Default 'ACTIVE'. */
  status?: SandboxAccountStatus;
  /** Omitted → no `connection_id` key. */
  connectionId?: number;
  /** Default 'current'. */
  profile?: SandboxAccountProfile;
  /** Mean rows per day; defaults to the provider option for ordinary profiles, a small rate otherwise. */
  transactionsPerDay?: number;
  /** Decimal string in the account currency; default depends on the profile. */
  openingBalance?: string;
  /** Default: profile === 'brokerage'. Unsupported accounts answer `/holdings` with HTTP 501. */
  holdings?: boolean;
  /** Last day the bank delivered data (YYYY-MM-DD); the account's state is frozen from then on. */
  dataUntil?: string;
  /**
   * Positive integer n: the bank re-issues the ids of ALL posted rows whenever
   * ⌊today / n⌋ changes (1 = new ids every day, as Pekao does). Omitted: ids are stable.
   */
  reissueIdsEveryDays?: number;
  /**
   * The id of another account in the list that this one is a new link of: the user removed the bank
   * and linked it again, and the provider lists the same bank account under a new id. Its history is
   * that account's (the same dates, amounts, merchants, descriptions and opening balance), under ids of
   * its own; give it the same profile, currency and per-day rate. Give the old account
   * `status: 'DISCONNECTED'` and a `dataUntil`, or leave it out of the list, to show the old link ending
   * (taken out, it must have been last: a posted id is drawn from the account's place in the list, so
   * moving the others would re-issue their ids).
   */
  historyOf?: number;
}

/** Ground-truth view of an account, normalised (ids as strings, absent fields as null). */
export interface SandboxAccount {
  /** The account's id as a string (the wire sends it as a number). */
  id: string;
  /** The spec's `connectionId` as a string, or null when `/accounts` sends none. */
  connectionId: string | null;
  /** The account name shown in `/accounts`. */
  name: string;
  /** The bank's name (`institution_name` on the wire). */
  institutionName: string;
  /** The bank's logo URL, or null when it has none. */
  institutionLogo: string | null;
  /** The upstream aggregator's name (`provider` on the wire). */
  provider: string;
  /** Authoritative currency (what `/balance` reports). */
  currency: string;
  /** What `/accounts` shows: null when the entry has no `currency` key. */
  listedCurrency: string | null;
  /** What `/accounts` reports. It does not stop the account's data by itself: `dataUntil` does. */
  status: SandboxAccountStatus;
  /** The kind of account, which decides what its history looks like. */
  profile: SandboxAccountProfile;
  /** Whether `/holdings` answers with positions; false means it answers 501. */
  holdingsSupported: boolean;
  /** Balance before the first generated transaction, fixed currency decimals. */
  openingBalance: string;
  /** Null unless the account's data stops at a fixed day. */
  dataUntil: string | null;
  /** Null when posted ids are stable; n when they all change each time ⌊today / n⌋ does. */
  reissueIdsEveryDays: number | null;
  /** The id (as a string) of the account whose history this one lists under ids of its own; null for most. */
  historyOf: string | null;
}

/** Resolved, precomputed form used on the hot path. */
export interface AccountModel {
  spec: SandboxAccountSpec;
  id: string;
  ordinal: number;
  key: number;
  profile: SandboxAccountProfile;
  status: SandboxAccountStatus;
  decimals: number;
  magnitude: number;
  meanPerDay: number;
  openingMinor: number;
  dataUntilDay: number | undefined;
  holdingsSupported: boolean;
  /** Twin pending purchases fall on days where (day + twinPhase) % 3 === 0. */
  twinPhase: number;
  reissueIdsEveryDays: number | undefined;
}

const FEW_ROWS_PER_DAY: Record<SandboxAccountProfile, number> = {
  current: 0,
  'credit-card': 0,
  savings: 0.03,
  brokerage: 0.02,
  isa: 0.01,
};

const OPENING_MAJOR: Record<SandboxAccountProfile, number> = {
  current: 1250,
  'credit-card': -350,
  savings: 5000,
  brokerage: 2000,
  isa: 3000,
};

export function isOrdinary(profile: SandboxAccountProfile): boolean {
  return profile === 'current' || profile === 'credit-card';
}

const DAY = 86_400_000;

function shiftIso(iso: string, days: number): string {
  return new Date(requireDay(iso, 'today') * DAY + days * DAY).toISOString().slice(0, 10);
}

/**
 * The documented default set (4711, 4712, 4713, 5001, 5002, 6001, 7001, 8001); the disconnected
 * account's data stops 150 days before `today`, and 8001's bank re-issues posted ids every day.
 */
export function defaultAccountSpecs(today: string): SandboxAccountSpec[] {
  return [
    {
      id: 4711,
      connectionId: 88,
      name: 'Current Account',
      institutionName: 'Example Bank',
      institutionLogo: 'https://cdn.example.com/logos/example-bank.png',
      provider: 'gocardless',
      currency: 'GBP',
      profile: 'current',
    },
    {
      id: 4712,
      connectionId: 88,
      name: 'Savings',
      institutionName: 'Example Bank',
      institutionLogo: 'https://cdn.example.com/logos/example-bank.png',
      provider: 'gocardless',
      currency: 'EUR',
      listCurrency: false,
      profile: 'savings',
    },
    {
      id: 4713,
      connectionId: 88,
      name: 'Credit Card',
      institutionName: 'Example Bank',
      provider: 'gocardless',
      currency: 'GBP',
      profile: 'credit-card',
    },
    {
      id: 5001,
      connectionId: 91,
      name: 'Brokerage',
      institutionName: 'Invest Co',
      institutionLogo: 'https://cdn.example.com/logos/invest-co.png',
      provider: 'snaptrade',
      currency: 'USD',
      profile: 'brokerage',
      holdings: true,
    },
    {
      id: 5002,
      connectionId: 88,
      name: 'Stocks ISA',
      institutionName: 'Example Bank',
      institutionLogo: 'https://cdn.example.com/logos/example-bank.png',
      provider: 'gocardless',
      currency: 'GBP',
      profile: 'isa',
      holdings: false,
    },
    {
      id: 6001,
      connectionId: 95,
      name: 'Old Joint Account',
      institutionName: 'Other Bank',
      institutionLogo: null,
      provider: 'gocardless',
      currency: 'EUR',
      status: 'DISCONNECTED',
      profile: 'current',
      dataUntil: shiftIso(today, -150),
    },
    {
      id: 7001,
      connectionId: 97,
      name: 'Travel Card',
      institutionName: 'Sakura Bank',
      provider: 'finverse',
      currency: 'JPY',
      profile: 'credit-card',
    },
    {
      id: 8001,
      connectionId: 99,
      name: 'Konto Osobiste',
      institutionName: 'Baltic Bank',
      provider: 'gocardless',
      currency: 'PLN',
      profile: 'current',
      reissueIdsEveryDays: 1,
    },
  ];
}

export function resolveAccounts(
  specs: readonly SandboxAccountSpec[],
  seedKey: number,
  defaultPerDay: number,
): AccountModel[] {
  if (specs.length > 4096) throw new RangeError('At most 4096 sandbox accounts are supported');
  const seen = new Set<number>();
  return specs.map((spec, ordinal) => {
    if (!Number.isSafeInteger(spec.id) || spec.id < 0) {
      throw new RangeError(`Account id must be a non-negative integer, got ${spec.id}`);
    }
    if (seen.has(spec.id)) throw new RangeError(`Duplicate account id ${spec.id}`);
    seen.add(spec.id);
    const profile = spec.profile ?? 'current';
    if (!Object.hasOwn(OPENING_MAJOR, profile)) {
      throw new RangeError(
        `profile must be one of ${Object.keys(OPENING_MAJOR).join(', ')}, got ${JSON.stringify(profile)}`,
      );
    }
    if (spec.status !== undefined && !ACCOUNT_STATUSES.includes(spec.status)) {
      throw new RangeError(
        `status must be one of ${ACCOUNT_STATUSES.join(', ')} (as the provider writes it), got ${JSON.stringify(spec.status)}`,
      );
    }
    if (!/^[A-Z]{3}$/.test(spec.currency)) {
      throw new RangeError(
        `currency must be an ISO 4217 code in capitals, got ${JSON.stringify(spec.currency)}`,
      );
    }
    const decimals = currencyDecimals(spec.currency);
    const magnitude = currencyMagnitude(spec.currency);
    const meanPerDay =
      spec.transactionsPerDay ?? (isOrdinary(profile) ? defaultPerDay : FEW_ROWS_PER_DAY[profile]);
    if (!(meanPerDay >= 0 && meanPerDay <= 10_000)) {
      throw new RangeError(`transactionsPerDay must be within 0..10000, got ${meanPerDay}`);
    }
    const reissue = spec.reissueIdsEveryDays;
    if (reissue !== undefined && !(Number.isSafeInteger(reissue) && reissue > 0)) {
      throw new RangeError(`reissueIdsEveryDays must be a positive integer, got ${reissue}`);
    }
    const historyOf = spec.historyOf;
    if (historyOf !== undefined) {
      if (!Number.isSafeInteger(historyOf) || historyOf < 0 || historyOf === spec.id)
        throw new RangeError(
          `historyOf must be the id of another account (a non-negative integer), got ${String(historyOf)}`,
        );
      // The old link may be gone from the list: the history is drawn from its id alone.
      const original = specs.find((other) => other.id === historyOf);
      const originalProfile = original?.profile ?? 'current';
      const rateOf = (other: SandboxAccountSpec) =>
        other.transactionsPerDay ??
        (isOrdinary(originalProfile) ? defaultPerDay : FEW_ROWS_PER_DAY[originalProfile]);
      const openingOf = (other: SandboxAccountSpec) =>
        other.openingBalance === undefined ? undefined : parseMinor(other.openingBalance, decimals);
      if (
        original &&
        (originalProfile !== profile ||
          original.currency !== spec.currency ||
          rateOf(original) !== meanPerDay ||
          openingOf(original) !== openingOf(spec))
      )
        throw new RangeError(
          `account ${spec.id} is a new link of ${historyOf}: it must have the same profile, currency, transactionsPerDay and openingBalance`,
        );
      if (original?.historyOf !== undefined)
        throw new RangeError(
          `historyOf names account ${historyOf}, itself a new link of ${original.historyOf}: name the first link, ${original.historyOf}`,
        );
    }
    // A new link of an account draws its history from that account's id; its ids come from its own ordinal.
    const key = hashInts(seedKey, hashString(String(historyOf ?? spec.id)));
    const openingMinor =
      spec.openingBalance !== undefined
        ? parseMinor(spec.openingBalance, decimals)
        : Math.round(OPENING_MAJOR[profile] * magnitude * (0.8 + (key % 400) / 1000)) * 10 ** decimals +
          (key % 10 ** decimals);
    return {
      spec,
      id: String(spec.id),
      ordinal,
      key,
      profile,
      status: spec.status ?? 'ACTIVE',
      decimals,
      magnitude,
      meanPerDay,
      openingMinor: profile === 'credit-card' ? -Math.abs(openingMinor) : openingMinor,
      dataUntilDay: spec.dataUntil === undefined ? undefined : requireDay(spec.dataUntil, 'dataUntil'),
      holdingsSupported: spec.holdings ?? profile === 'brokerage',
      twinPhase: key % 3,
      reissueIdsEveryDays: reissue,
    };
  });
}

export function describeAccount(model: AccountModel): SandboxAccount {
  const { spec } = model;
  return {
    id: model.id,
    connectionId: spec.connectionId === undefined ? null : String(spec.connectionId),
    name: spec.name,
    institutionName: spec.institutionName,
    institutionLogo: spec.institutionLogo ?? null,
    provider: spec.provider,
    currency: spec.currency,
    listedCurrency: spec.listCurrency === false ? null : spec.currency,
    status: model.status,
    profile: model.profile,
    holdingsSupported: model.holdingsSupported,
    openingBalance: formatMinor(model.openingMinor, model.decimals),
    dataUntil: spec.dataUntil ?? null,
    reissueIdsEveryDays: model.reissueIdsEveryDays ?? null,
    historyOf: spec.historyOf === undefined ? null : String(spec.historyOf),
  };
}
