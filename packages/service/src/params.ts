/** Query strings, and the checks on list parameters made before anything is sent. */
import { InvalidRequestError, type Issue } from './errors.js';
import { LIMITS, count } from './limits.js';
import { UUID } from './request-body.js';
import { PLAIN_DECIMAL, isCalendarDate, type TransactionListParams } from './schemas.js';
import { isWellFormedText, malformedTextMessage } from './text.js';

/**
 * One value of a `request()` query: arrays are sent Rails-style as `name[]=a&name[]=b`, and `undefined`
 * leaves the parameter out.
 */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** Arrays are sent Rails-style as `name[]=a&name[]=b`; `undefined` values are left out. */
export function toQuery(query: Record<string, QueryValue> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(`${name}[]`, String(item));
    else params.set(name, String(value));
  }
  return params;
}

/**
 * A list's filters as one query string must stay within `LIMITS.query`: each id list is bounded on its
 * own, but two full ones together pass the 10 KB Puma, which serves Sure, takes in a query string, and
 * its bare 400 would say nothing of why. Names the largest parameter, the one to split.
 */
export function queryLengthIssues(filters: Record<string, QueryValue>): Issue[] {
  const length = toQuery(filters).toString().length;
  if (length <= LIMITS.query) return [];
  const sizes = Object.entries(filters).map(([name, value]) => ({
    name,
    size: toQuery({ [name]: value }).toString().length,
  }));
  const largest = sizes.reduce((a, b) => (b.size > a.size ? b : a));
  return [
    {
      path: largest.name,
      message: `the filters make a query of ${count(length)} characters, over ${count(LIMITS.query)} (the service's server refuses a query string over 10 KB); split ${largest.name}, the largest, into several calls`,
    },
  ];
}

/** Throws the `InvalidRequestError` for a list call refused before sending (nothing goes out). */
export function refuseParams(issues: Issue[], what: string, path: string): void {
  if (issues.length === 0) return;
  const first = issues[0]!;
  throw new InvalidRequestError(`refused to ${what}: ${first.path}: ${first.message}`, {
    method: 'GET',
    path,
    issues,
  });
}

export function isParamsObject(params: unknown): params is Record<string, unknown> {
  return params !== null && typeof params === 'object' && !Array.isArray(params);
}

export const NOT_AN_OBJECT: Issue = { path: '', message: 'the parameters must be an object' };

/**
 * Names set (not `undefined`) that are not in `known`: the service ignores an unknown parameter
 * silently, so a typo (`category` for `category_id`) would widen the list without a word.
 */
export function unknownIssues(
  params: Record<string, unknown>,
  known: readonly string[],
  what: string,
): Issue[] {
  return Object.keys(params)
    .filter((name) => params[name] !== undefined && !known.includes(name))
    .map((name) => ({ path: name, message: `not a parameter of ${what} (known: ${known.join(', ')})` }));
}

/** `page` and `per_page`: the service silently answers 25 per page for anything outside 1..100. */
export function pageIssues(params: { page?: unknown; per_page?: unknown }): Issue[] {
  const issues: Issue[] = [];
  const { page, per_page: perPage } = params;
  if (page !== undefined && !(Number.isInteger(page) && (page as number) >= 1)) {
    issues.push({ path: 'page', message: 'must be a positive integer' });
  }
  if (
    perPage !== undefined &&
    !(Number.isInteger(perPage) && (perPage as number) >= 1 && (perPage as number) <= 100)
  ) {
    issues.push({ path: 'per_page', message: 'must be an integer from 1 to 100' });
  }
  return issues;
}

/** A single id: the service casts one that is not a UUID to nil, so it would silently match nothing. */
export function uuidIssue(name: string, value: unknown): Issue[] {
  if (value === undefined || (typeof value === 'string' && UUID.test(value))) return [];
  if (typeof value === 'string' && !isWellFormedText(value)) {
    return [{ path: name, message: malformedTextMessage(name) }];
  }
  return [{ path: name, message: 'must be a UUID' }];
}

/** A boolean flag (sent as `true`/`false`, which Rails casts). */
export function booleanIssue(name: string, value: unknown): Issue[] {
  return value === undefined || typeof value === 'boolean'
    ? []
    : [{ path: name, message: 'must be a boolean' }];
}

const TRANSACTION_LIST_PARAMS = [
  'page',
  'per_page',
  'account_id',
  'account_ids',
  'start_date',
  'end_date',
  'search',
  'category_id',
  'category_ids',
  'merchant_id',
  'merchant_ids',
  'tag_ids',
  'min_amount',
  'max_amount',
  'type',
] as const satisfies ReadonlyArray<keyof TransactionListParams>;

/** `account_ids`, `category_ids`, `merchant_ids`, `tag_ids`: a non-empty list of UUIDs. */
function idListIssues(name: string, value: unknown): Issue[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ path: name, message: 'must be an array of UUIDs' }];
  // No `name[]` at all is no filter: an empty list would silently list everything, not nothing.
  if (value.length === 0) {
    return [{ path: name, message: 'must not be empty (the service would apply no filter); leave it out' }];
  }
  if (value.length > LIMITS.filterIds) {
    return [
      {
        path: name,
        message: `must hold at most ${count(LIMITS.filterIds)} ids (it has ${count(value.length)}); split the list into several calls`,
      },
    ];
  }
  return value.flatMap((id, index) => uuidIssue(`${name}[${index}]`, id));
}

/** A finite number or a plain decimal string: the service runs Ruby's `to_f` ("abc" → 0, "1,5" → 1). */
function amountIssue(name: string, value: unknown): Issue[] {
  if (value === undefined) return [];
  if (
    typeof value === 'number'
      ? Number.isFinite(value)
      : typeof value === 'string' && PLAIN_DECIMAL.test(value)
  ) {
    return [];
  }
  return [{ path: name, message: 'must be a finite number or a decimal string like 12.34' }];
}

export function listIssues(input: TransactionListParams): Issue[] {
  if (!isParamsObject(input)) return [NOT_AN_OBJECT];
  const params: Record<string, unknown> = input;
  const issues = [
    ...unknownIssues(params, TRANSACTION_LIST_PARAMS, 'the transaction list'),
    ...pageIssues(params),
  ];
  for (const name of ['start_date', 'end_date'] as const) {
    const value = params[name];
    if (value !== undefined && !(typeof value === 'string' && isCalendarDate(value))) {
      issues.push({ path: name, message: 'must be a calendar date YYYY-MM-DD' });
    }
  }
  const { start_date: start, end_date: end } = input;
  if (typeof start === 'string' && typeof end === 'string' && start > end) {
    issues.push({ path: 'start_date', message: `is after end_date (${end})` });
  }
  for (const name of ['account_id', 'category_id', 'merchant_id'] as const) {
    issues.push(...uuidIssue(name, params[name]));
  }
  for (const name of ['account_ids', 'category_ids', 'merchant_ids', 'tag_ids'] as const) {
    issues.push(...idListIssues(name, params[name]));
  }
  issues.push(...searchIssues(params.search), ...amountIssues(input));
  return issues;
}

function searchIssues(search: unknown): Issue[] {
  if (search === undefined) return [];
  if (typeof search !== 'string') return [{ path: 'search', message: 'must be a string' }];
  if (search.length > LIMITS.search) {
    return [
      {
        path: 'search',
        message: `must be at most ${count(LIMITS.search)} characters (it has ${count(search.length)})`,
      },
    ];
  }
  // A query string cannot carry an unpaired surrogate: it would be sent as U+FFFD, another search.
  if (!isWellFormedText(search)) return [{ path: 'search', message: malformedTextMessage('search') }];
  if (search.trim() === '') {
    return [
      { path: 'search', message: 'is blank, which the service ignores (every row matches); leave it out' },
    ];
  }
  return [];
}

/** Bounds that are decimals, in order, and not contradicting `type` (the internal sign, see the README). */
function amountIssues(params: TransactionListParams): Issue[] {
  const issues = [
    ...amountIssue('min_amount', params.min_amount),
    ...amountIssue('max_amount', params.max_amount),
  ];
  const type: unknown = params.type;
  if (type !== undefined && type !== 'income' && type !== 'expense') {
    // The service ignores any other value silently.
    issues.push({ path: 'type', message: 'must be "income" or "expense"' });
  }
  if (issues.length > 0) return issues;
  const min = params.min_amount === undefined ? undefined : Number(params.min_amount);
  const max = params.max_amount === undefined ? undefined : Number(params.max_amount);
  if (min !== undefined && max !== undefined && min > max) {
    issues.push({ path: 'min_amount', message: `is above max_amount (${String(params.max_amount)})` });
  }
  // Income is stored below zero and expenses above: these pairs can only ever list nothing, and
  // almost always mean the bounds were given as magnitudes.
  if (type === 'income' && min !== undefined && min >= 0) {
    issues.push({
      path: 'min_amount',
      message:
        'income is stored as a negative amount, so nothing would match; for income of at least 10, send max_amount: -10',
    });
  }
  if (type === 'expense' && max !== undefined && max <= 0) {
    issues.push({
      path: 'max_amount',
      message:
        'expenses are stored as positive amounts, so nothing would match; bounds are signed (positive = expense)',
    });
  }
  return issues;
}
