/**
 * Keeping the API key out of everything a client hands back: error messages, body excerpts, causes.
 * Both clients send the key in a header on every request, so anything that holds the request (or
 * the options it was built from) holds the key.
 */

/** How much of a response body an error keeps. */
export const EXCERPT_LENGTH = 500;

let lastForms: { secret: string; forms: readonly string[] } | undefined;

/**
 * The forms a server may echo `secret` in: as is, escaped in JSON (`"` and `\`, and `/` as `\/`, as
 * PHP writes it), and percent-encoded (upper- or lower-case hex, a space as `+`, as a URL's parser
 * encodes a query or a path). Longest first, so a form holding another is masked whole.
 */
function formsOf(secret: string): readonly string[] {
  if (lastForms?.secret === secret) return lastForms.forms;
  const json = JSON.stringify(secret).slice(1, -1);
  const encoded = encodeURIComponent(secret);
  const forms = [
    ...new Set([
      secret,
      json,
      json.replaceAll('/', '\\/'),
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
      encoded.replaceAll('%20', '+'),
      encodeURI(secret),
      // As a URL's parser writes it in a query and in a path (a redirect's Location, read back).
      new URL(`http://h/?${secret}`).search.slice(1),
      new URL(`http://h/${secret}`).pathname.slice(1),
    ]),
  ]
    // Every encoding is at least as long: a shorter one was cut (a `#` in the key ends a URL's path).
    .filter((form) => form.length >= secret.length)
    .sort((a, b) => b.length - a.length);
  lastForms = { secret, forms };
  return forms;
}

/**
 * `text` with every occurrence of `secret` masked, in each form a server may echo it in (`formsOf`).
 * A secret under 4 characters is left alone: masking it would mangle ordinary text (and such a key
 * is no secret anyway).
 */
export function redact(text: string, secret: string): string {
  if (secret.length < 4) return text;
  let masked = text;
  for (const form of formsOf(secret))
    if (masked.includes(form)) masked = masked.split(form).join('[REDACTED]');
  return masked;
}

/** Whether `text` holds `secret` in any form `redact` masks. */
function holdsForm(text: string, secret: string): boolean {
  return formsOf(secret).some((form) => text.includes(form));
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

/** How many values `holdsSecret` looks at before it gives up (and counts the secret as held). */
const SEARCH_BUDGET = 20_000;
/** How deep below one error of a cause chain `holdsSecret` looks (the chain's links are searched one by one). */
const SEARCH_DEPTH = 8;
/** Bytes (a Buffer, a typed array) read as text to look for the secret; more count as holding it. */
const SEARCH_BYTES = 65_536;
/** Getters a logger prints that are not own properties: a kept `Request`'s headers and URL, a `URL`'s. */
const PRINTED_GETTERS = ['headers', 'url', 'href'] as const;

/**
 * Whether `value` holds `secret` anywhere a logger could print it: a string, an own property (named,
 * symbol-keyed or valued; enumerable or not), an array item, a Map's or Headers' entries, a Request's
 * headers and URL, a Buffer's bytes, however deep, down to `SEARCH_DEPTH`. Its `cause` is not searched
 * here (the chain is, link by link). Too much to search, or a getter that throws, counts as holding it.
 */
function holdsSecret(value: unknown, secret: string): boolean {
  let budget = SEARCH_BUDGET;
  const seen = new Set<object>();
  const search = (item: unknown, depth: number): boolean => {
    if ((budget -= 1) < 0) return true;
    if (typeof item === 'string') return holdsForm(item, secret);
    if (item === null || (typeof item !== 'object' && typeof item !== 'function')) return false;
    if (seen.has(item)) return false;
    seen.add(item);
    if (depth > SEARCH_DEPTH) return true;
    if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer) {
      const bytes =
        item instanceof ArrayBuffer
          ? new Uint8Array(item)
          : new Uint8Array(item.buffer, item.byteOffset, item.byteLength);
      if (bytes.length > SEARCH_BYTES) return true;
      let text = '';
      for (let i = 0; i < bytes.length; i += 4096)
        text += String.fromCharCode(...bytes.subarray(i, i + 4096));
      return holdsForm(text, secret);
    }
    // Headers, Map, URLSearchParams: their entries are not own properties, but are printed.
    const entries = (item as { entries?: unknown }).entries;
    if (typeof entries === 'function' && !Array.isArray(item)) {
      for (const entry of (entries as () => Iterable<unknown>).call(item))
        if (search(entry, depth + 1)) return true;
    }
    const proto: unknown = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null && !Array.isArray(item))
      for (const name of PRINTED_GETTERS)
        if (
          name in item &&
          !Object.hasOwn(item, name) &&
          search((item as Record<string, unknown>)[name], depth + 1)
        )
          return true;
    for (const name of Object.getOwnPropertyNames(item)) {
      if (holdsForm(name, secret)) return true;
      if (name === 'cause' && item instanceof Error) continue;
      if (search((item as Record<string, unknown>)[name], depth + 1)) return true;
    }
    for (const symbol of Object.getOwnPropertySymbols(item))
      if (search((item as Record<symbol, unknown>)[symbol], depth + 1)) return true;
    return false;
  };
  try {
    return search(value, 0);
  } catch {
    return true;
  }
}

/**
 * Whether `error`, or any cause below it, holds `secret` anywhere a logger could print it: its
 * message, stack, or any other value it carries (a custom fetch's error keeping the headers it sent).
 * A secret under 4 characters is no secret (see `redact`); a chain too long to search counts as
 * holding it.
 */
export function quotesSecret(error: unknown, secret: string): boolean {
  if (secret.length < 4) return false;
  const chain = causeChain(error);
  if (!chain) return true;
  return chain.some((link) => holdsSecret(link, secret));
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
