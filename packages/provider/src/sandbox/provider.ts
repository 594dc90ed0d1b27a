import type { AccountModel, SandboxAccount } from './accounts.js';
import { defaultAccountSpecs, describeAccount, resolveAccounts } from './accounts.js';
import type { DayWindow, RowState } from './dataset.js';
import { Dataset, listedAmountMinor } from './dataset.js';
import { DAY_MS, isoDay, parseDay, requireDay } from './dates.js';
import { FaultController } from './faults.js';
import type { SandboxHoldings } from './holdings.js';
import { describeHoldings, holdingsFor } from './holdings.js';
import { formatMinor } from './money.js';
import { hashInts, hashString, hexFromHash } from './random.js';
import {
  ACCOUNT_NOT_FOUND,
  FORBIDDEN,
  HOLDINGS_UNSUPPORTED,
  JSON_TYPE,
  UNAUTHORIZED,
  defaultErrorBody,
  jsonResponse,
  matchRoute,
  rateLimited,
  sleep,
  transactionStream,
  truncatedCopy,
  wrappedRateLimit,
} from './responses.js';
import type { Route } from './responses.js';
import type {
  SandboxBalance,
  SandboxOptions,
  SandboxRequestRecord,
  SandboxTransaction,
  TransactionQuery,
} from './types.js';
import type { WireContext } from './wire.js';
import {
  accountJson,
  balanceJson,
  holdingsJson,
  idTag,
  rowDescription,
  transactionId,
  transactionJson,
} from './wire.js';

export type {
  SandboxBalance,
  SandboxOptions,
  SandboxRequestRecord,
  SandboxTransaction,
  TransactionQuery,
} from './types.js';

function requireNonNegativeInteger(value: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max)
    throw new RangeError(
      max === Number.MAX_SAFE_INTEGER
        ? `${what} must be a non-negative integer`
        : `${what} must be a whole number from 0 to ${max}, got ${String(value)}`,
    );
  return value;
}

/** A century of history: more than any bank keeps, and a year that stays four digits. */
const MAX_HISTORY_DAYS = 36_525;

/** The key the sandbox accepts: what a client could send in a header. */
function requireApiKey(key: unknown): string {
  if (typeof key !== 'string' || key.trim() === '' || /[\u0000-\u001f\u007f]/.test(key))
    throw new TypeError('the sandbox apiKey must be a non-empty string without control characters');
  return key;
}

/** A deterministic, seeded imitation of the Lunch Flow Personal API. */
export class SandboxProvider {
  /** Injected failures, scoped to this instance. */
  readonly faults: FaultController;

  private todayDay: number;
  private apiKey: string;
  private readonly accounts: AccountModel[];
  private readonly byId = new Map<string, AccountModel>();
  private readonly dataset: Dataset;
  private readonly wire: WireContext;
  private readonly seedKey: number;
  private readonly maxRows: number | undefined;
  private readonly logLimit: number;
  private log: SandboxRequestRecord[] = [];
  private total = 0;

  constructor(options: SandboxOptions = {}) {
    const today = options.today ?? '2026-06-30';
    this.todayDay = requireDay(today, 'today');
    this.apiKey = requireApiKey(options.apiKey ?? 'sandbox-key');
    this.seedKey = hashString(String(options.seed ?? 1));
    // 1e9 days of history made dates no calendar has, and listings that never end.
    const historyDays = requireNonNegativeInteger(
      options.historyDays ?? 730,
      'historyDays',
      MAX_HISTORY_DAYS,
    );
    const perDay = options.transactionsPerDay ?? 3;
    this.accounts = resolveAccounts(options.accounts ?? defaultAccountSpecs(today), this.seedKey, perDay);
    for (const acct of this.accounts) this.byId.set(acct.id, acct);
    this.dataset = new Dataset(
      this.seedKey,
      this.todayDay - historyDays,
      options.lingeringHolds ?? true,
      options.holdsSettleElsewise ?? false,
      options.holdsRelisted ?? false,
    );
    this.wire = {
      seedKey: this.seedKey,
      idKey: hashInts(this.seedKey, 0x1d),
      variants: options.wireVariants ?? false,
    };
    this.maxRows =
      options.maxRowsPerResponse === undefined
        ? undefined
        : requireNonNegativeInteger(options.maxRowsPerResponse, 'maxRowsPerResponse');
    this.logLimit = requireNonNegativeInteger(options.logLimit ?? 10_000, 'logLimit');
    this.faults = new FaultController(hashInts(this.seedKey, 0xfa));
  }

  /** The sandbox's current day, `YYYY-MM-DD`: rows up to it exist, pending rows are judged against it. */
  get today(): string {
    return isoDay(this.todayDay);
  }

  /** Moves time; new days get rows, pending rows post, expired holds vanish. Negative n goes back. */
  advanceDays(n = 1): void {
    if (!Number.isInteger(n)) throw new RangeError('advanceDays expects an integer');
    this.todayDay += n;
  }

  /** Moves time to a given day (`YYYY-MM-DD`), forward or back; see `advanceDays`. */
  setToday(date: string): void {
    this.todayDay = requireDay(date, 'today');
  }

  /** Changes the accepted key; requests with the old one now get 403. */
  setApiKey(key: string): void {
    this.apiKey = requireApiKey(key);
  }

  /** Ground truth for every account, normalised as the client would read it. */
  listAccounts(): SandboxAccount[] {
    return this.accounts.map(describeAccount);
  }

  /** Ground truth for an account's balance today; a `RangeError` for an unknown account. */
  balanceOf(accountId: string | number): SandboxBalance {
    const acct = this.account(accountId);
    const minor = this.dataset.balanceMinor(acct, this.todayDay);
    return { amount: formatMinor(minor, acct.decimals), currency: acct.spec.currency };
  }

  /** Lazily generated, newest date first, exactly the rows `/transactions` would return. */
  transactionsOf(
    accountId: string | number,
    query: TransactionQuery = {},
  ): Generator<SandboxTransaction, void, undefined> {
    const acct = this.account(accountId);
    const rows = this.dataset.rows(acct, this.todayDay, this.window(query));
    return this.describeRows(acct, rows);
  }

  /**
   * How many rows `/transactions` would list for the query, lingering holds included (the `total` it
   * would send), without generating them as objects.
   */
  countTransactions(accountId: string | number, query: TransactionQuery = {}): number {
    return this.dataset.count(this.account(accountId), this.todayDay, this.window(query));
  }

  /** Null when the account does not support holdings (the API answers 501). */
  holdingsOf(accountId: string | number): SandboxHoldings | null {
    const acct = this.account(accountId);
    if (!acct.holdingsSupported) return null;
    return describeHoldings(acct, this.holdingModels(acct));
  }

  /** The most recent `logLimit` requests, oldest first (copies). */
  get requests(): SandboxRequestRecord[] {
    return this.log.slice(-this.logLimit).map((r) => ({ ...r, query: { ...r.query } }));
  }

  /** Every request handled since construction or the last reset; never capped. */
  get requestCount(): number {
    return this.total;
  }

  /** Empties `requests` and sets `requestCount` back to 0. */
  resetRequestLog(): void {
    this.log = [];
    this.total = 0;
  }

  /** Answers one HTTP request; any path prefix works, routes match on the pathname suffix. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const record: SandboxRequestRecord = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
    };
    this.record(record);
    const response = await this.respond(request, url);
    record.status = response.type === 'error' ? 0 : response.status;
    return response;
  }

  private record(entry: SandboxRequestRecord): void {
    this.total++;
    if (this.logLimit === 0) return;
    this.log.push(entry);
    // Trim in batches so logging stays O(1) amortised.
    if (this.log.length >= this.logLimit * 2) this.log = this.log.slice(-this.logLimit);
  }

  private account(accountId: string | number): AccountModel {
    const acct = this.byId.get(String(accountId));
    if (!acct) throw new RangeError(`Unknown sandbox account ${accountId}`);
    return acct;
  }

  private window(query: TransactionQuery): DayWindow {
    return {
      fromDay: query.from === undefined ? undefined : requireDay(query.from, 'from'),
      toDay: query.to === undefined ? undefined : requireDay(query.to, 'to'),
      includePending: query.includePending ?? false,
    };
  }

  private *describeRows(
    acct: AccountModel,
    rows: Iterable<RowState>,
  ): Generator<SandboxTransaction, void, undefined> {
    const tag = this.idTag(acct);
    for (const state of rows) {
      const { row } = state;
      yield {
        id: state.pending ? null : transactionId(this.wire, acct, state, tag),
        accountId: acct.id,
        amount: formatMinor(listedAmountMinor(state), acct.decimals),
        currency: acct.spec.currency,
        date: isoDay(state.day),
        merchant: row.merchant,
        description: rowDescription(state),
        isPending: state.pending,
        lingering: state.lingering,
        purchaseId: `p_${acct.id}_${isoDay(row.authDay)}_${row.index}`,
      };
    }
  }

  private idTag(acct: AccountModel): number {
    return idTag(acct, this.dataset.effectiveToday(acct, this.todayDay));
  }

  private holdingModels(acct: AccountModel) {
    return holdingsFor(this.seedKey, acct, this.dataset.effectiveToday(acct, this.todayDay));
  }

  private headers(): Record<string, string> {
    // Looks like Vercel's request id, but derived from the seed and request number.
    const h = hashInts(this.seedKey, this.total, this.todayDay);
    const stamp = this.todayDay * DAY_MS + this.total;
    return { 'x-vercel-id': `lhr1::iad1::${hexFromHash(h, 5)}-${stamp}-${hexFromHash(h ^ 0x5bd1e995, 12)}` };
  }

  private async respond(request: Request, url: URL): Promise<Response> {
    const route = matchRoute(url.pathname);
    const decision = this.faults.decide({
      endpoint: route?.endpoint,
      accountId: route?.accountId,
      pathname: url.pathname,
    });
    try {
      for (const ms of decision.delaysMs) await sleep(ms, request.signal);
    } catch {
      // The client went away while we were being slow: answer like a dropped connection, not a throw
      // (MSW reports a throwing handler as a test error).
      return Response.error();
    }
    const fault = decision.fault;
    const headers = this.headers();
    switch (fault?.kind) {
      case undefined:
        return this.answer(request, url, route, headers);
      case 'status':
        return jsonResponse(
          fault.status,
          fault.body ?? defaultErrorBody(fault.status, route?.endpoint),
          headers,
        );
      case 'rate-limit': {
        const seconds = fault.retryAfterSeconds ?? 60;
        return jsonResponse(429, rateLimited(seconds), { ...headers, 'retry-after': String(seconds) });
      }
      case 'rate-limit-500': {
        const accountId = route?.accountId ?? this.accounts[0]?.id ?? '0';
        return jsonResponse(500, wrappedRateLimit(accountId, fault.retryAfterSeconds), headers);
      }
      case 'malformed-json':
        return truncatedCopy(await this.answer(request, url, route, headers));
      case 'network-error':
        return Response.error();
    }
  }

  private answer(
    request: Request,
    url: URL,
    route: Route | undefined,
    headers: Record<string, string>,
  ): Response {
    if (!route) {
      return jsonResponse(404, { error: 'Not Found', message: `No route matches ${url.pathname}.` }, headers);
    }
    if (request.method !== 'GET') {
      const message = `Method ${request.method} is not allowed. Use GET.`;
      return jsonResponse(405, { error: 'Method Not Allowed', message }, { ...headers, allow: 'GET' });
    }
    const key =
      request.headers.get('x-api-key') ??
      /^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!key) return jsonResponse(401, UNAUTHORIZED, headers);
    if (key !== this.apiKey) return jsonResponse(403, FORBIDDEN, headers);
    if (route.endpoint === 'accounts') {
      const accounts = this.accounts.map((acct) => accountJson(this.wire, acct));
      return jsonResponse(200, { accounts, total: accounts.length }, headers);
    }
    const acct = route.accountId === undefined ? undefined : this.byId.get(route.accountId);
    if (!acct) return jsonResponse(404, ACCOUNT_NOT_FOUND, headers);
    switch (route.endpoint) {
      case 'balance': {
        const minor = this.dataset.balanceMinor(acct, this.todayDay);
        return jsonResponse(200, balanceJson(this.wire, acct, minor, this.accounts.length), headers);
      }
      case 'holdings':
        if (!acct.holdingsSupported) return jsonResponse(501, HOLDINGS_UNSUPPORTED, headers);
        return jsonResponse(200, holdingsJson(this.wire, acct, this.holdingModels(acct)), headers);
      case 'transactions':
        return this.transactions(acct, url.searchParams, headers);
    }
  }

  private transactions(
    acct: AccountModel,
    params: URLSearchParams,
    headers: Record<string, string>,
  ): Response {
    const window: DayWindow = { includePending: params.get('include_pending')?.toLowerCase() === 'true' };
    for (const name of ['from', 'to'] as const) {
      const value = params.get(name);
      if (value === null) continue;
      const day = parseDay(value);
      if (day === undefined) {
        const message = `Invalid '${name}' date ${JSON.stringify(value)}. Expected YYYY-MM-DD.`;
        return jsonResponse(400, { error: 'Bad Request', message }, headers);
      }
      window[name === 'from' ? 'fromDay' : 'toDay'] = day;
    }
    if (window.fromDay !== undefined && window.toDay !== undefined && window.fromDay > window.toDay) {
      return jsonResponse(400, { error: 'Bad Request', message: "'from' must not be after 'to'." }, headers);
    }
    const rows = this.dataset.rows(acct, this.todayDay, window);
    const tag = this.idTag(acct);
    const body = transactionStream(
      rows,
      (state) => transactionJson(this.wire, acct, state, tag),
      this.maxRows,
    );
    return new Response(body, { status: 200, headers: { ...headers, 'content-type': JSON_TYPE } });
  }
}
