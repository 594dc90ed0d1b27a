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

/** How many links of a cause chain are searched; a chain longer than that is dropped unread. */
export const CAUSE_DEPTH = 8;

/** `error` and the causes below it, or `undefined` when there are more than `CAUSE_DEPTH` or one cannot be read. */
function causeChain(error: unknown): unknown[] | undefined {
  const chain: unknown[] = [];
  try {
    for (let link = error; link !== undefined && link !== null; link = (link as { cause?: unknown }).cause) {
      if (chain.includes(link)) break;
      if (chain.length === CAUSE_DEPTH) return undefined;
      chain.push(link);
      if (typeof link !== 'object' && typeof link !== 'function') break;
    }
  } catch {
    // A `cause` getter that throws: nothing below it can be vouched for.
    return undefined;
  }
  return chain;
}

/**
 * Whether `error`, or any cause below it, quotes `secret` in its message or stack (a secret under 4
 * characters is no secret: see `redact`). A chain too long to search counts as quoting it.
 */
export function quotesSecret(error: unknown, secret: string): boolean {
  if (secret.length < 4) return false;
  const chain = causeChain(error);
  if (!chain) return true;
  try {
    return chain.some((link) => {
      if (typeof link === 'string') return link.includes(secret);
      if (link === null || typeof link !== 'object') return false;
      const { message, stack } = link as { message?: unknown; stack?: unknown };
      return [message, stack].some((text) => typeof text === 'string' && text.includes(secret));
    });
  } catch {
    return true;
  }
}

/**
 * `error` if it is safe to keep as an error's `cause`, else `undefined`. ky's errors carry the
 * `request` and the `options` it was sent with (headers included), and errors of other HTTP layers
 * carry their `config` or `headers`; any of them would put the key in front of whoever logs the
 * cause chain. Such an error, or one with such an error anywhere among its causes (or too many
 * causes to search), is dropped, not copied: its message is already in the new error's.
 */
export function safeCause(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return error;
  const chain = causeChain(error);
  if (!chain) return undefined;
  const carriesRequest = chain.some(
    (link) =>
      link !== null &&
      typeof link === 'object' &&
      ['request', 'options', 'config', 'headers'].some((key) => key in link),
  );
  return carriesRequest ? undefined : error;
}
