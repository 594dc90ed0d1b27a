/**
 * The option checks both clients share: what a caller hands a client besides its requests. A bad
 * value is a programmer's error, thrown at once as a `TypeError` (wrong kind) or `RangeError` (out
 * of bounds) naming the option and the value received, rather than failing later in every request.
 */
import { excerpt } from './redact.js';

/**
 * Why no HTTP header can carry `key`, or undefined when one can: a control character (a line break
 * pasted with it), or a character past U+00FF (a curly quote, an emoji), which fetch cannot send, so
 * every request failed as a connection error, and was retried. The one rule for everything that takes
 * or stores a key: both clients, the CLI and the reference server (through `@finsync/provider`).
 */
export function apiKeyFault(key: string): 'control character' | 'past U+00FF' | undefined {
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'control character';
  if (/[^\u0000-\u00ff]/.test(key)) return 'past U+00FF';
  return undefined;
}

/** Node runs no timer longer than this: a longer one fires at once (and ky refuses such a timeout). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Retries after the first attempt; more would keep a failing call going for many minutes. */
export const MAX_RETRIES = 10;

/** The methods a logger may have; each one it has must be a function. */
const LOGGER_METHODS = ['debug', 'info', 'warn', 'error'] as const;

/** How much of a string a message repeats. */
const SHOWN_LENGTH = 40;

/**
 * `value` as a message shows it: a string quoted, cut, and with the key masked (an option given the
 * key by mistake must not repeat it); anything else by its kind, never by calling its `toString`.
 */
export function shown(value: unknown, apiKey = ''): string {
  if (typeof value === 'string') return JSON.stringify(excerpt(value, apiKey, SHOWN_LENGTH));
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A number of milliseconds a timer can wait: above 0 (`positive`) or from 0, at most `MAX_TIMER_MS`.
 * `apiKey` is masked in the message: an option given the key by mistake must not repeat it.
 */
export function checkedMs(
  name: string,
  value: unknown,
  least: 'zero allowed' | 'positive',
  apiKey: string,
): number {
  if (
    typeof value === 'number' &&
    value <= MAX_TIMER_MS &&
    (value > 0 || (value === 0 && least !== 'positive'))
  )
    return value;
  const from = least === 'positive' ? 'a positive number of milliseconds' : 'a number of milliseconds from 0';
  throw new RangeError(
    `${name} must be ${from} up to ${MAX_TIMER_MS} (what a timer can wait), got ${shown(value, apiKey)}`,
  );
}

/** `maxRetries`: a whole number from 0 to `MAX_RETRIES` (`apiKey` masked in the message). */
export function checkedMaxRetries(value: unknown, apiKey: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_RETRIES)
    return value;
  throw new RangeError(
    `maxRetries must be a whole number from 0 to ${MAX_RETRIES}, got ${shown(value, apiKey)}`,
  );
}

/**
 * `fetch`: a function (anything else failed every call as a `ConnectionError`); default
 * `globalThis.fetch`, looked up per call so that a fetch replaced later (MSW) is the one used.
 */
export function checkedFetch(value: unknown, apiKey: string): typeof globalThis.fetch {
  if (value === undefined || value === null) return (input, init) => globalThis.fetch(input, init);
  if (typeof value !== 'function')
    throw new TypeError(`fetch must be a function (a fetch implementation), got ${shown(value, apiKey)}`);
  return value as typeof globalThis.fetch;
}

/**
 * `logger`: an object such as `console`, each of whose `debug`, `info`, `warn` and `error`, where
 * given, is a function. A function (`console.log`) or a string logged nothing, silently.
 */
export function checkedLogger<L extends object>(value: unknown, apiKey: string): L | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(
      `logger must be an object with some of the methods debug, info, warn and error (console works), got ${shown(value, apiKey)}`,
    );
  }
  for (const level of LOGGER_METHODS) {
    const method = (value as Record<string, unknown>)[level];
    if (method !== undefined && method !== null && typeof method !== 'function')
      throw new TypeError(`logger.${level} must be a function, got ${shown(method, apiKey)}`);
  }
  return value as L;
}

/**
 * A call's `signal`: an `AbortSignal`, or none (`undefined`, or `null`), judged by its shape as fetch
 * judges it (a polyfill's or another realm's is not `instanceof` this one's). Anything else failed
 * as a `ConnectionError` when fetch refused it.
 */
export function checkedSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined || value === null) return undefined;
  const signal = value as Partial<AbortSignal>;
  if (
    typeof value === 'object' &&
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function'
  )
    return value as AbortSignal;
  throw new TypeError(`signal must be an AbortSignal, got ${shown(value)}`);
}
