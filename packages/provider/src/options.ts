/**
 * The checks on what a caller hands the client: the constructor's options, a call's `windowDays`,
 * `signal` and account ids, and `toArray`'s `limit`. A bad value is a programmer's error, thrown at
 * once as a `TypeError` (wrong kind) or `RangeError` (out of bounds) naming the option and the value
 * received, rather than failing later in a request, a timer or the date arithmetic of a walk.
 */
import {
  MAX_TIMER_MS,
  apiKeyFault,
  checkedFetch,
  checkedLogger,
  checkedMaxRetries,
  checkedMs,
  shown,
} from '@finsync/internals/http';
import type { RateLimitOptions } from './core/http.js';
import type { ProviderClientOptions } from './client.js';
import type { ProviderLogger } from './core/logger.js';
import { resolveSpillSettings, type ResolvedSpillSettings } from './whole-history.js';

/**
 * The provider's API root, used when `ProviderClientOptions.baseUrl` is not given. It is the `www`
 * host: the bare `lunchflow.app` answers every request with a 308 to it.
 */
export const DEFAULT_BASE_URL = 'https://www.lunchflow.app/api/v1';

/** A century: longer than any bank's history, and it keeps every window's end a 4-digit year. */
export const MAX_WINDOW_DAYS = 36_525;
/** Longer ids than any provider's; a longer one is a mistake (a body, a file) and is not sent. */
export const MAX_ACCOUNT_ID_LENGTH = 256;

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `windowDays` from the constructor or a call: a whole number of days, 1 to `MAX_WINDOW_DAYS`; the
 * constructor's `apiKey` is masked in the message.
 */
export function checkedWindowDays(value: unknown, apiKey = ''): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_WINDOW_DAYS) {
    return value;
  }
  throw new RangeError(
    `windowDays must be a whole number of days from 1 to ${MAX_WINDOW_DAYS}, got ${shown(value, apiKey)}`,
  );
}

/** The id of an account as sent in a path: a non-empty string, or a whole number, checked before any request. */
export function checkedAccountId(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return String(value);
    throw new RangeError(
      `accountId must be a whole number of at least 0 or a non-empty string, got ${shown(value)}`,
    );
  }
  if (typeof value !== 'string') {
    throw new TypeError(`accountId must be a non-empty string or a whole number, got ${shown(value)}`);
  }
  if (value.trim() === '') throw new TypeError(`accountId must be a non-empty string, got ${shown(value)}`);
  if (value.length > MAX_ACCOUNT_ID_LENGTH) {
    throw new RangeError(
      `accountId must be at most ${MAX_ACCOUNT_ID_LENGTH} characters, got ${value.length} starting ${shown(value)}`,
    );
  }
  // encodeURIComponent throws a URIError for it, and no server could have issued such an id.
  if (LONE_SURROGATE.test(value)) {
    throw new TypeError(
      `accountId must be valid Unicode text (it holds an unpaired UTF-16 surrogate), got ${shown(value)}`,
    );
  }
  return value;
}

/** `toArray`'s options: `{ limit }`, a whole number of transactions from 0. */
export function checkedToArrayLimit(options: unknown): number {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`toArray needs options { limit }, a non-negative integer; got ${shown(options)}`);
  }
  const { limit } = options as { limit?: unknown };
  if (typeof limit === 'number' && Number.isInteger(limit) && limit >= 0) return limit;
  throw new RangeError(`toArray needs a limit: a non-negative integer; got ${shown(limit)}`);
}

export interface CheckedClientOptions {
  /** Without white space at either end: fetch trims a header's value, so this is what is sent. */
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  rateLimit: RateLimitOptions | false;
  windowDays: number;
  timeZone: string | undefined;
  spill: ResolvedSpillSettings | false;
  fetch: typeof globalThis.fetch;
  logger: ProviderLogger | undefined;
}

function checkedBaseUrl(value: unknown, apiKey: string): string {
  if (value === undefined) return DEFAULT_BASE_URL;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  // The key goes in a header to this URL: never to a file:, data: or other scheme.
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    // Shown without what a user name and password would be, whether or not the rest parses.
    const seen =
      typeof value === 'string'
        ? shown(value.replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1'), apiKey)
        : shown(value, apiKey);
    throw new TypeError(`baseUrl must be an absolute http(s) URL such as ${DEFAULT_BASE_URL}, got ${seen}`);
  }
  if (url.username !== '' || url.password !== '') {
    // Not echoed: the password is a secret. fetch refuses such a URL anyway, on every call, and its
    // error quotes the URL whole.
    throw new TypeError(
      `baseUrl must not hold a user name or password (${url.origin}); the provider is authenticated by apiKey`,
    );
  }
  // Paths are appended to it: `…/v1?x=1` would ask `…/v1?x=1/accounts`. Not echoed: a query may hold a token.
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value as string)) {
    throw new TypeError(
      `baseUrl must not hold a query or a fragment (${url.origin}${url.pathname}); request paths are appended to it`,
    );
  }
  return (value as string).replace(/\/+$/, '');
}

function checkedRateLimit(value: unknown, apiKey: string): RateLimitOptions | false {
  if (value === undefined || value === null) return { limit: 90, intervalMs: 60_000 };
  if (value === false) return false;
  if (typeof value !== 'object') {
    throw new TypeError(`rateLimit must be { limit, intervalMs } or false, got ${shown(value, apiKey)}`);
  }
  const { limit, intervalMs } = value as Partial<RateLimitOptions>;
  // A limit of 0 lets no call through: every call would wait for ever.
  if (!(Number.isSafeInteger(limit) && limit! >= 1)) {
    throw new RangeError(
      `rateLimit.limit must be a whole number of calls of at least 1, got ${shown(limit, apiKey)}`,
    );
  }
  return { limit: limit!, intervalMs: checkedMs('rateLimit.intervalMs', intervalMs, 'positive', apiKey) };
}

function checkedTimeZone(value: unknown, apiKey: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new TypeError(
      `timeZone must be an IANA time zone name such as Europe/London, got ${shown(value, apiKey)}`,
    );
  }
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: value });
  } catch {
    // Unchecked, it failed at the first row read in it, or at "today", in the middle of a walk.
    throw new RangeError(
      `timeZone must be an IANA time zone name such as Europe/London, got ${shown(value, apiKey)}`,
    );
  }
  return value;
}

function checkedSpill(spill: ProviderClientOptions['spill']): ResolvedSpillSettings | false {
  if (spill === false) return false;
  const settings = spill ?? {};
  for (const name of ['afterRows', 'pageRows'] as const) {
    const value = settings[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      throw new RangeError(`spill.${name} must be a positive integer, got ${String(value)}`);
  }
  return resolveSpillSettings(settings);
}

/** Every option, checked and with its default. */
export function checkedClientOptions(options: ProviderClientOptions): CheckedClientOptions {
  if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('ProviderClient needs a non-empty apiKey');
  }
  // fetch sends a header's value trimmed: the key kept (and masked wherever a server echoes it) is
  // the one sent, so an echo of `key` is masked for a key given as `key `.
  const apiKey = options.apiKey.trim();
  // No HTTP header can carry it: every request would fail, with the key in fetch's own message.
  const fault = apiKeyFault(apiKey);
  if (fault === 'control character')
    throw new TypeError('ProviderClient: the apiKey contains a control character (a line break?)');
  if (fault === 'past U+00FF')
    throw new TypeError(
      'ProviderClient: the apiKey contains a character no HTTP header can carry (pasted with a curly quote or an emoji?)',
    );
  return {
    apiKey,
    baseUrl: checkedBaseUrl(options.baseUrl, apiKey),
    timeoutMs: checkedMs('timeoutMs', options.timeoutMs ?? 60_000, 'positive', apiKey),
    maxRetries: checkedMaxRetries(options.maxRetries ?? 2, apiKey),
    maxRetryAfterMs: checkedMs('maxRetryAfterMs', options.maxRetryAfterMs ?? 60_000, 'zero allowed', apiKey),
    rateLimit: checkedRateLimit(options.rateLimit, apiKey),
    windowDays: checkedWindowDays(options.windowDays ?? 90, apiKey),
    timeZone: checkedTimeZone(options.timeZone, apiKey),
    spill: checkedSpill(options.spill),
    fetch: checkedFetch(options.fetch, apiKey),
    logger: checkedLogger<ProviderLogger>(options.logger, apiKey),
  };
}
