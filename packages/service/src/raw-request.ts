/**
 * The checks `client.request()` makes before anything is sent: a method the client sends, a path
 * that stays below `/api/v1/` once resolved (the API key goes with every request, so a path such
 * as `../../admin` would hand it to another endpoint of the host), and a query of plain values.
 * A refusal is an `InvalidRequestError`; nothing is sent.
 */
import { InvalidRequestError, type Issue } from './errors.js';
import { LIMITS, count } from './limits.js';
import { isParamsObject, toQuery } from './params.js';
import { isWellFormedText } from './text.js';

export const RAW_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

const API_PATH = '/api/v1/';

export interface CheckedRequest {
  method: (typeof RAW_METHODS)[number];
  /** Below the base URL, without a leading slash: `api/v1/categories`. */
  path: string;
  query: URLSearchParams;
}

/** A scheme (`http:`, `javascript:`): the path would name another URL altogether. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** C0 control characters and DEL: a URL drops tabs and newlines, so `.\t.` would be `..`. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `text` percent-decoded until it no longer changes (a server may decode more than once). */
function decoded(text: string): string {
  let current = text;
  for (let round = 0; round < 4; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current; // a `%` that is not an escape: sent and read as it is
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** What is wrong with `path` (relative to `/api/v1/`), or `undefined`. Never quotes the path. */
function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string') return 'must be a string: the endpoint below /api/v1/, e.g. "categories"';
  if (path.length > LIMITS.path) {
    return `must be at most ${count(LIMITS.path)} characters (it has ${count(path.length)})`;
  }
  if (!isWellFormedText(path)) return 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)';
  if (CONTROL.test(path)) return 'must not hold control characters (a URL drops or rejects them)';
  if (/^[/\\]{2}/.test(path)) return 'must not start with // (that names another host)';
  if (SCHEME.test(path)) return 'must be a path below /api/v1/, not a URL with a scheme';
  if (path.includes('\\')) return 'must not hold a backslash (URLs read it as /)';
  const relative = path.replace(/^\//, '');
  if (relative === '') return 'must name an endpoint below /api/v1/, e.g. "categories"';
  const segments = decoded(relative.split(/[?#]/)[0]!).split(/[/\\]/);
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return 'must not hold "." or ".." segments (percent-encoded or not): they would leave /api/v1/';
  }
  return undefined;
}

/** The query: a plain object of strings, numbers, booleans and arrays of strings (`undefined` = not set). */
function queryIssues(query: unknown): Issue[] {
  if (query === undefined) return [];
  if (!isParamsObject(query)) return [{ path: 'query', message: 'must be an object of parameters' }];
  return Object.entries(query)
    .filter(([, value]) => {
      if (value === undefined || ['string', 'number', 'boolean'].includes(typeof value)) return false;
      return !(Array.isArray(value) && value.every((item) => typeof item === 'string'));
    })
    .map(([name]) => ({
      path: `query.${name}`,
      message: 'must be a string, a number, a boolean or an array of strings',
    }));
}

function methodIssue(method: unknown): Issue[] {
  if (typeof method === 'string' && (RAW_METHODS as readonly string[]).includes(method.toUpperCase())) {
    return [];
  }
  const got = typeof method === 'string' && method.length <= 16 ? ` (got ${JSON.stringify(method)})` : '';
  return [{ path: 'method', message: `must be one of ${RAW_METHODS.join(', ')}${got}` }];
}

/**
 * Checks `request()`'s options against `baseUrl` (the client's, without a trailing slash) and
 * returns what to send, or throws `InvalidRequestError`.
 */
export function checkRequest(options: unknown, baseUrl: string): CheckedRequest {
  const context = { path: `${API_PATH}{path}` };
  if (!isParamsObject(options)) {
    throw new InvalidRequestError(
      'refused to send a request: the options must be an object { method, path }',
      {
        ...context,
        issues: [
          { path: '', message: 'the request options must be an object { method, path, query?, body? }' },
        ],
      },
    );
  }
  const problem = pathProblem(options.path);
  // The query sent replaces one written in the path (ky's searchParams): the filter would be dropped
  // without a word, and every row listed.
  const both =
    !problem && options.query !== undefined && (options.path as string).includes('?')
      ? [
          {
            path: 'path',
            message: 'must not hold a query (?…) when `query` is given: put every parameter in `query`',
          },
        ]
      : [];
  const issues: Issue[] = [
    ...methodIssue(options.method),
    ...(problem ? [{ path: 'path', message: problem }] : []),
    ...both,
    ...queryIssues(options.query),
    // fetch refuses it as it builds the request, which read as a ConnectionError: nothing sent.
    ...(options.body !== undefined &&
    typeof options.method === 'string' &&
    options.method.toUpperCase() === 'GET'
      ? [{ path: 'body', message: 'a GET carries no body: send the filters in `query`' }]
      : []),
  ];
  if (issues.length === 0) {
    // Whatever the checks above missed, the resolved URL must still be below the base's /api/v1/.
    const base = new URL(`${baseUrl}${API_PATH}`);
    const target = new URL((options.path as string).replace(/^\//, ''), base);
    if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
      issues.push({ path: 'path', message: 'must resolve to a URL below /api/v1/' });
    }
  }
  if (issues.length > 0) {
    const first = issues[0]!;
    const method =
      typeof options.method === 'string' && options.method.length <= 16
        ? options.method.toUpperCase()
        : undefined;
    throw new InvalidRequestError(
      `refused to send ${method ?? 'a request'}: ${first.path}: ${first.message}`,
      {
        ...context,
        method,
        issues,
      },
    );
  }
  return {
    method: (options.method as string).toUpperCase() as CheckedRequest['method'],
    path: `${API_PATH.slice(1)}${(options.path as string).replace(/^\//, '')}`,
    query: toQuery(options.query as Parameters<typeof toQuery>[0]),
  };
}
