/**
 * A request's JSON body, read and parsed once however many checks ask for it (the well-formed-text
 * middleware first, then the route's validator).
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'hono';

export type JsonBody = { ok: true; value: unknown } | { ok: false; reason: 'not-utf8' | 'not-json' };

const parsed = new WeakMap<Request, Promise<JsonBody>>();

/**
 * The body as JSON. JSON text is UTF-8 (RFC 8259): bytes that are not are refused rather than stored
 * as U+FFFD, which would not be what was sent. A leading byte order mark goes, as `Response.json()`
 * lets it go. A failure to read (a body over the limit) is thrown.
 */
export function readJsonBody(c: Context): Promise<JsonBody> {
  const request = c.req.raw;
  let body = parsed.get(request);
  if (!body) {
    body = c.req.arrayBuffer().then((buffer): JsonBody => {
      const bytes = Buffer.from(buffer);
      if (!isUtf8(bytes)) return { ok: false, reason: 'not-utf8' };
      const text = bytes.toString('utf8');
      try {
        return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
      } catch {
        return { ok: false, reason: 'not-json' };
      }
    });
    parsed.set(request, body);
  }
  return body;
}
