import { HttpClient, type JsonResponse, type RateLimitOptions, type StreamResponse } from './core/http.js';
import {
  InvalidResponseError,
  NotFoundError,
  ProviderAPIError,
  RequestAbortedError,
  type ResponseIssue,
} from './core/errors.js';
import type { ProviderLogger } from './core/logger.js';
import { checkedSignal, logTo, shown } from '@finsync/internals/http';
import { checkedAccountId, checkedClientOptions, checkedToArrayLimit, checkedWindowDays } from './options.js';
import {
  walkTransactionPages,
  type RawWindowResult,
  type ReceiveWindow,
  type TransactionPage,
  type TransactionWindow,
} from './transactions.js';
import {
  addDays,
  isValidCalendarDate,
  today as todayIn,
  type CalendarDate,
} from '@finsync/internals/calendar';
import {
  buildCheckedRows,
  readDocumentedDates,
  readDocumentedTransactionList,
  readTransactionList,
  readTransactionRows,
} from './wire/fast-transactions.js';
import { remadeRows } from './wire/transaction-row.js';
import { readStreamedList, type ResolvedSpillSettings, type SpillSettings } from './whole-history.js';
import {
  AccountListSchema,
  BalanceSchema,
  HoldingsSchema,
  createTransactionListSchema,
  createTransactionSchema,
  type Account,
  type Balance,
  type Holding,
  type Transaction,
} from './wire/schemas.js';
import type { z } from 'zod';

/** How far a timestamp read in a zone can move from the day on its own clock (offsets run −12 to +14 hours). */
const ZONE_MARGIN_DAYS = 2;

export { DEFAULT_BASE_URL } from './options.js';

/**
 * What `new ProviderClient(…)` takes. Only `apiKey` is required; the defaults suit the real provider
 * (in tests, spread `testClientOptions` from `@finsync/provider/msw`). Every option is checked when the
 * client is made, and a bad one throws a `TypeError` or `RangeError` naming it.
 */
export interface ProviderClientOptions {
  /** The provider API key. Sent as `x-api-key`; never logged, never kept on errors. */
  apiKey: string;
  /**
   * The API root, an absolute `http:` or `https:` URL (a trailing `/` is dropped). Default
   * `DEFAULT_BASE_URL`, `https://www.lunchflow.app/api/v1`; point it at a sandbox server in tests.
   */
  baseUrl?: string | undefined;
  /**
   * Milliseconds per attempt, for the response headers and then for any pause in the body; a retried
   * call can take longer in total. Above 0, up to 2 147 483 647. Default 60 000.
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, for network errors, timeouts, 408, 429 and 5xx: 0 to 10. Default 2. */
  maxRetries?: number | undefined;
  /**
   * The longest server-requested wait (`Retry-After`, or the wait in a rate-limit message) that a call
   * sleeps through before retrying. A longer one throws `RateLimitError` with `retryAfterMs`, so
   * the caller can reschedule instead of hanging. Default 60 000 ms.
   */
  maxRetryAfterMs?: number | undefined;
  /**
   * Client-side throttle shared by every call of this client, retries included. Default 90 calls per
   * minute, under the provider's observed 100/minute. `false` turns it off.
   */
  rateLimit?: RateLimitOptions | false | undefined;
  /** Days per `/transactions` request when walking a date range: 1 to 36 525. Default 90. */
  windowDays?: number | undefined;
  /**
   * IANA time zone used to read timestamps as calendar dates and to decide what "today" is.
   * Default: none. A timestamp is then read on its own clock (`2026-06-14T23:30:00Z` is the 14th,
   * `2026-06-15T00:30:00+01:00` the 15th), which is also the day the provider files it under for
   * `from`/`to`; "today" is the machine's.
   *
   * With a zone, a timestamp near midnight can move to the day before or after the one the provider
   * files it under. Every window is then asked with two more days on either side, and its rows are
   * kept by their day in the zone, so each row lands in exactly one window.
   */
  timeZone?: string | undefined;
  /**
   * A whole-history answer (`listTransactions` without `from`) is read as it arrives; past
   * `afterRows` rows it is kept in temporary files, not in memory. Held or spilled, it is handed
   * out as pages of whole weeks, at most `pageRows` rows unless one week holds more, whose windows
   * tile the history, oldest first; so is a window's answer of more than `pageRows` rows. `false`
   * holds every answer in memory and hands each out as one page.
   */
  spill?: SpillSettings | false | undefined;
  /** A `fetch` implementation (a function); default `globalThis.fetch`, looked up per call. */
  fetch?: typeof globalThis.fetch | undefined;
  /** An object with any of `debug`, `info`, `warn`, `error` (each a function), e.g. `console`. */
  logger?: ProviderLogger | undefined;
}

/** Options every `ProviderClient` method takes. */
export interface CallOptions {
  /** Aborts the call; anything but an `AbortSignal` (or `undefined`) is a `TypeError`, nothing sent. */
  signal?: AbortSignal | undefined;
}

/**
 * Options of `ProviderClient.listTransactions`: the date range, whether pending rows are wanted, and
 * the window size. Dates are checked when `listTransactions` is called (a `RangeError` for a date that
 * is not `YYYY-MM-DD`, or `from` after `to`).
 */
export interface ListTransactionsOptions extends CallOptions {
  /** First day, inclusive. Omitted: the whole history, in one request. */
  from?: CalendarDate | undefined;
  /** Last day, inclusive. Default: today (in `timeZone`). */
  to?: CalendarDate | undefined;
  /** Ask for pending rows too (`include_pending=true`). Default false. */
  includePending?: boolean | undefined;
  /** Days per request for this call, 1 to 36 525, instead of the client's `windowDays`. */
  windowDays?: number | undefined;
}

/** The result of `getHoldings`: holdings, or the provider's answer that the account has none to give. */
export type HoldingsResult =
  | {
      /** The account has holdings to report (possibly none). */
      supported: true;
      /** Each position of the account. */
      holdings: Holding[];
      /** The provider's total value of the holdings, a decimal string, or `null` when it sent none. */
      totalValue: string | null;
      /** ISO 4217 code of `totalValue`, upper-cased, or `null` when the provider sent none. */
      currency: string | null;
    }
  | {
      /** The provider does not report holdings for this account. */
      supported: false;
      /** The HTTP status that said so: 501, or 404 for some accounts. */
      status: number;
      /** The error message built from that answer, for display or logs. */
      reason: string;
    };

/**
 * The transactions of one account over a date range, fetched lazily. Iterate it for transactions,
 * or `pages()` for one entry per provider response. Each iteration sends fresh requests.
 */
export interface TransactionList extends AsyncIterable<Transaction> {
  /**
   * The same transactions grouped as they arrive: one `TransactionPage` per provider response (or per
   * page of whole weeks of a large answer), oldest first, each with the provider's `total` and any
   * `shortfall`. Use it to tell a complete window from one cut short.
   */
  pages(): AsyncIterable<TransactionPage>;
  /**
   * Collects every transaction; refuses (`RangeError`) to hold more than `limit`, a guard against
   * unbounded memory. `limit` is required: a whole number, 0 or more (a `RangeError` otherwise, and a
   * `TypeError` without options), checked before anything is sent.
   */
  toArray(options: { limit: number }): Promise<Transaction[]>;
}

/** The first issues of `error`; `rowOffset` is added to a row index (for a list read in batches). */
function issuesOf(error: z.ZodError, rowOffset = 0): ResponseIssue[] {
  return error.issues.slice(0, 10).map((issue) => ({
    path: issue.path.reduce<string>(
      (acc, part, index) =>
        typeof part === 'number'
          ? `${acc}[${index === 1 ? part + rowOffset : part}]`
          : acc
            ? `${acc}.${String(part)}`
            : String(part),
      '',
    ),
    message: issue.message,
  }));
}

/** The error for a 2xx answer whose body is not what the provider documents; names the first issue. */
function invalidResponse(
  response: { status: number; path: string },
  issues: ResponseIssue[],
): InvalidResponseError {
  const first = issues[0];
  return new InvalidResponseError(
    `unexpected response from GET ${response.path}${first ? `: ${first.path || '(body)'}: ${first.message}` : ''}`,
    { method: 'GET', path: response.path, status: response.status, issues },
  );
}

function assertDate(name: string, value: string | undefined): void {
  if (value !== undefined && !isValidCalendarDate(value)) {
    throw new RangeError(`${name} must be a calendar date YYYY-MM-DD, got ${shown(value)}`);
  }
}

/**
 * A typed client for the provider's Personal API.
 *
 * ```ts
 * const client = new ProviderClient({ apiKey: process.env.LUNCHFLOW_API_KEY! });
 * for (const account of await client.listAccounts()) {
 *   for await (const tx of client.listTransactions(account.id, { from: '2026-01-01' })) console.log(tx);
 * }
 * ```
 */
export class ProviderClient {
  /** The API root in use, with no trailing `/`; safe to log (the key is never part of it). */
  readonly baseUrl: string;
  readonly #http: HttpClient;
  readonly #windowDays: number;
  readonly #timeZone: string | undefined;
  readonly #logger: ProviderLogger | undefined;
  readonly #transactionSchema: ReturnType<typeof createTransactionSchema>;
  readonly #transactionListSchema: ReturnType<typeof createTransactionListSchema>;
  readonly #spill: ResolvedSpillSettings | false;

  constructor(options: ProviderClientOptions) {
    const checked = checkedClientOptions(options);
    this.baseUrl = checked.baseUrl;
    this.#windowDays = checked.windowDays;
    this.#timeZone = checked.timeZone;
    this.#logger = checked.logger;
    this.#transactionSchema = createTransactionSchema(checked.timeZone);
    this.#transactionListSchema = createTransactionListSchema(checked.timeZone);
    this.#spill = checked.spill;
    this.#http = new HttpClient({
      apiKey: checked.apiKey,
      baseUrl: checked.baseUrl,
      timeoutMs: checked.timeoutMs,
      maxRetries: checked.maxRetries,
      maxRetryAfterMs: checked.maxRetryAfterMs,
      rateLimit: checked.rateLimit,
      fetch: checked.fetch,
      logger: checked.logger,
    });
  }

  /** Every account the key has access to (switched on under the destination's Account Access). */
  async listAccounts(options: CallOptions = {}): Promise<Account[]> {
    const signal = checkedSignal(options.signal);
    const response = await this.#http.getJson('accounts', { signal });
    return this.#parse(AccountListSchema, response).accounts;
  }

  /** The current balance. Its `currency` is the account's authoritative currency. */
  async getBalance(accountId: string | number, options: CallOptions = {}): Promise<Balance> {
    const id = checkedAccountId(accountId);
    const signal = checkedSignal(options.signal);
    const response = await this.#http.getJson(`accounts/${encodeURIComponent(id)}/balance`, { signal });
    return this.#parse(BalanceSchema, response);
  }

  /**
   * Holdings of an investment account. Accounts whose upstream aggregator has no holdings answer
   * 501 (some 404); both come back as `{ supported: false }` rather than as an error.
   */
  async getHoldings(accountId: string | number, options: CallOptions = {}): Promise<HoldingsResult> {
    const id = checkedAccountId(accountId);
    const signal = checkedSignal(options.signal);
    try {
      const response = await this.#http.getJson(`accounts/${encodeURIComponent(id)}/holdings`, { signal });
      return { supported: true, ...this.#parse(HoldingsSchema, response) };
    } catch (error) {
      if (error instanceof NotFoundError || (error instanceof ProviderAPIError && error.status === 501)) {
        return { supported: false, status: error.status, reason: error.message };
      }
      throw error;
    }
  }

  /**
   * Transactions of one account, walked in date windows of `windowDays`. Rows outside the asked
   * window, and pending rows unless `includePending`, are dropped on the client too.
   */
  listTransactions(accountId: string | number, options: ListTransactionsOptions = {}): TransactionList {
    const id = checkedAccountId(accountId);
    const signal = checkedSignal(options.signal);
    assertDate('from', options.from);
    assertDate('to', options.to);
    if (options.from && options.to && options.from > options.to) {
      throw new RangeError(`from (${options.from}) is after to (${options.to})`);
    }
    const includePending = options.includePending ?? false;
    const windowDays =
      options.windowDays === undefined ? this.#windowDays : checkedWindowDays(options.windowDays);
    const path = `accounts/${encodeURIComponent(id)}/transactions`;
    // Read in a zone, a row's day can be up to two days from the one the provider files it under (a
    // timestamp on another clock). A window is asked with that margin on either side and its rows
    // kept by their own day, so a row near midnight at the edge between two windows is in one of
    // them, and a stored row at that edge is not taken for deleted by the window that now holds it.
    const margin = this.#timeZone === undefined ? 0 : ZONE_MARGIN_DAYS;
    // Past year 9999 addDays makes no YYYY-MM-DD ('+010000-01'); nothing is filed out there anyway.
    const widen = (date: CalendarDate, days: number) => {
      const wider = addDays(date, days);
      return isValidCalendarDate(wider) ? wider : date;
    };
    const requestFor = (window: TransactionWindow, signal: AbortSignal | undefined) => ({
      signal,
      query: {
        from: window.from === null ? undefined : widen(window.from, -margin),
        to: window.to === null ? undefined : widen(window.to, margin),
        include_pending: includePending ? 'true' : 'false',
      },
    });
    const rowsOf = (response: JsonResponse): RawWindowResult => {
      const parsed = this.#parseTransactionList(response);
      for (const row of parsed.transactions) row.accountId = id;
      return { rows: parsed.transactions, total: parsed.total ?? parsed.count ?? null };
    };
    const fetchWindow = async (window: TransactionWindow): Promise<RawWindowResult> => {
      const request = requestFor(window, signal);
      if (window.from === null && this.#spill !== false) {
        return this.#readWholeHistory(await this.#http.getStream(path, request), id, this.#spill);
      }
      return rowsOf(await this.#http.getJson(path, request));
    };
    const receiveWindow: ReceiveWindow = async (window, signal) => {
      const parse = await this.#http.receiveJson(path, requestFor(window, signal));
      return () => rowsOf(parse());
    };
    const walk = () =>
      walkTransactionPages(fetchWindow, {
        from: options.from,
        to: options.to,
        today: todayIn(this.#timeZone),
        windowDays,
        includePending,
        receiveWindow,
        signal,
        ...(this.#spill === false ? {} : { pageRows: this.#spill.pageRows }),
        onShortfall: (page) =>
          logTo(this.#logger, 'warn', 'provider returned fewer transactions than its total', {
            accountId: id,
            from: page.from,
            to: page.to,
            total: page.total,
            missing: page.shortfall,
          }),
      });
    // Once the caller's signal has fired, no page is handed out, not even one already in memory
    // (the rest of a dense window, a held or spilled whole history).
    const pages = signal
      ? async function* (): AsyncGenerator<TransactionPage> {
          for await (const page of walk()) {
            if (signal.aborted) {
              throw new RequestAbortedError(`GET /${path} aborted`, {
                method: 'GET',
                path: `/${path}`,
                cause: signal.reason,
              });
            }
            yield page;
          }
        }
      : walk;
    return {
      pages,
      async *[Symbol.asyncIterator]() {
        for await (const page of pages()) yield* page.transactions;
      },
      async toArray(toArrayOptions) {
        const limit = checkedToArrayLimit(toArrayOptions);
        const all: Transaction[] = [];
        for await (const page of pages()) {
          if (all.length + page.transactions.length > limit) {
            throw new RangeError(`more than ${limit} transactions; iterate instead of collecting`);
          }
          all.push(...page.transactions);
        }
        return all;
      },
    };
  }

  #readWholeHistory(response: StreamResponse, accountId: string, spill: ResolvedSpillSettings) {
    const invalid = (issues: ResponseIssue[]) => invalidResponse(response, issues);
    const parseRows = (raw: unknown[], offset: number) => {
      let read = readTransactionRows(raw, this.#transactionSchema);
      if (!read) {
        // A row the schema refuses: the list schema words the error, as for any other list.
        const result = this.#transactionListSchema.safeParse({ transactions: raw });
        // Issue paths count rows from the start of the answer, not of this batch.
        if (!result.success) throw invalid(issuesOf(result.error, offset));
        read = { rows: remadeRows(result.data.transactions), documented: false };
      }
      for (const row of read.rows) row.accountId = accountId;
      return read;
    };
    return readStreamedList({
      chunks: response.chunks,
      spill,
      notJson: (message) => invalid([{ path: '', message: `not JSON: ${message}` }]),
      parseEnvelope: (envelope) => {
        const parsed =
          readDocumentedTransactionList(envelope) ??
          this.#parse(this.#transactionListSchema, { ...response, body: envelope });
        return parsed.total ?? parsed.count ?? null;
      },
      parseRows,
      datesOfRows: (raw, offset) => {
        const dates = readDocumentedDates(raw);
        if (dates) return { dates, documented: true };
        const { rows } = parseRows(raw, offset);
        return { dates: rows.map((row) => row.date), documented: false, rows };
      },
      decodeDocumented: (raw) => buildCheckedRows(raw, accountId),
    });
  }

  /**
   * A list, row by row when its envelope is the documented one and every row reads (fast-transactions.ts),
   * else through the full list schema, which reads it or words the error.
   */
  #parseTransactionList(response: { body: unknown; status: number; path: string }) {
    const read = readTransactionList(response.body, this.#transactionSchema);
    if (read) return read;
    const parsed = this.#parse(this.#transactionListSchema, response);
    return { ...parsed, transactions: remadeRows(parsed.transactions) };
  }

  #parse<S extends z.ZodType>(
    schema: S,
    response: { body: unknown; status: number; path: string },
  ): z.output<S> {
    const result = schema.safeParse(response.body);
    if (result.success) return result.data;
    throw invalidResponse(response, issuesOf(result.error));
  }

  /** Keeps the key out of `util.inspect` and `JSON.stringify` (it lives in private fields only). */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProviderClient { baseUrl: '${this.baseUrl}' }`;
  }
}
