/**
 * Keeping the API key out of everything a client hands back: error messages, body excerpts, causes.
 * Both clients send the key in a header on every request, so anything that holds the request (or
 * the options it was built from) holds the key.
 */

/** How much of a response body an error keeps. */
export const EXCERPT_LENGTH = 500;

/**
 * `text` with every occurrence of `secret` masked. A secret under 4 characters is left alone:
 * masking it would mangle ordinary text (and such a key is no secret anyway).
 */
export function redact(text: string, secret: string): string {
  return secret.length >= 4 ? text.split(secret).join('[REDACTED]') : text;
}

/** `value` with `secret` masked in every string it holds, however deep (an error body's `details`). */
export function redactDeep<T>(value: T, secret: string): T {
  if (typeof value === 'string') return redact(value, secret) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secret)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [redact(name, secret), redactDeep(item, secret)]),
  ) as T;
}

/** The first `length` characters of `text` (key masked first, so a cut never leaves half a key). */
export function excerpt(text: string, secret: string, length: number = EXCERPT_LENGTH): string {
  const clean = redact(text, secret);
  return clean.length > length ? `${clean.slice(0, length)}…` : clean;
}

/**
 * `error` if it is safe to keep as an error's `cause`, else `undefined`. ky's errors carry the
 * `request` and the `options` it was sent with (headers included), and errors of other HTTP layers
 * carry their `config` or `headers`; any of them would put the key in front of whoever logs the
 * cause chain. Such an error is dropped, not copied: its message is already in the new error's.
 */
export function safeCause(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return error;
  const carriesRequest = ['request', 'options', 'config', 'headers'].some((key) => key in error);
  return carriesRequest ? undefined : error;
}
