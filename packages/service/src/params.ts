/** Query strings, and the checks on list parameters made before anything is sent. */
import type { Issue } from './errors.js';
import { isCalendarDate, type TransactionListParams } from './schemas.js';
import { isWellFormedText, malformedTextMessage } from './text.js';

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

/** `page` and `per_page`: the service silently answers 25 per page for anything outside 1..100. */
export function pageIssues(params: { page?: number | undefined; per_page?: number | undefined }): Issue[] {
  const issues: Issue[] = [];
  if (params.page !== undefined && !(Number.isInteger(params.page) && params.page >= 1)) {
    issues.push({ path: 'page', message: 'must be a positive integer' });
  }
  if (
    params.per_page !== undefined &&
    !(Number.isInteger(params.per_page) && params.per_page >= 1 && params.per_page <= 100)
  ) {
    issues.push({ path: 'per_page', message: 'must be an integer from 1 to 100' });
  }
  return issues;
}

export function listIssues(params: TransactionListParams): Issue[] {
  const issues = pageIssues(params);
  for (const name of ['start_date', 'end_date'] as const) {
    const value = params[name];
    if (value !== undefined && !isCalendarDate(value)) {
      issues.push({ path: name, message: 'must be a calendar date YYYY-MM-DD' });
    }
  }
  if (params.start_date && params.end_date && params.start_date > params.end_date) {
    issues.push({ path: 'start_date', message: `is after end_date (${params.end_date})` });
  }
  // A query string cannot carry an unpaired surrogate: it would be sent as U+FFFD, another search.
  for (const name of ['account_id', 'search', 'category_id', 'merchant_id'] as const) {
    const value = params[name];
    if (typeof value === 'string' && !isWellFormedText(value)) {
      issues.push({ path: name, message: malformedTextMessage(name) });
    }
  }
  params.tag_ids?.forEach((id, index) => {
    if (typeof id === 'string' && !isWellFormedText(id)) {
      issues.push({ path: `tag_ids[${index}]`, message: malformedTextMessage('Tag id') });
    }
  });
  return issues;
}
