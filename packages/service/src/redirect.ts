/**
 * Redirects, followed by hand so the API key never leaves the service's origin.
 *
 * fetch's own `redirect: 'follow'` re-sends every header except `Authorization` (and cookies) to
 * wherever `Location` points — `X-Api-Key` included. A proxy misconfiguration or a hijacked route
 * answering `302 Location: https://elsewhere/` would hand the key to elsewhere. So requests go out
 * with `redirect: 'manual'`, and this wrapper decides:
 *
 * - another origin (scheme, host or port differ; an http → https upgrade too) → `RedirectError`,
 *   nothing sent there;
 * - the same origin → followed, key included (it is the service's own origin), up to 5 hops;
 * - a write (POST/PATCH/PUT/DELETE) is followed only on 307/308, with its body re-sent; on 301/302/303
 *   fetch would turn it into a GET whose answer is not the write's, so that is a `RedirectError` too.
 */
import { RedirectError } from './errors.js';
import { logTo, untilAborted } from '@finsync/internals/http';
import type { ServiceLogger } from './logger.js';

export interface RedirectSettings {
  fetch: typeof globalThis.fetch;
  /** The service root; only its origin receives requests (and the key). */
  baseUrl: string;
  /** Masks the API key in text that ends up in an error. */
  mask: (text: string) => string;
  /** `/api/v1/…?…` for a request URL, as errors show paths. */
  relativePath: (url: string) => string;
  logger: ServiceLogger | undefined;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** The statuses that keep the method and the body (RFC 9110 §15.4.8, §15.4.9). */
const METHOD_KEEPING = new Set([307, 308]);

/** `fetch`, following only same-origin redirects (see the module comment). */
export async function fetchWithinOrigin(
  settings: RedirectSettings,
  input: Request,
  init?: RequestInit,
): Promise<Response> {
  const origin = new URL(settings.baseUrl).origin;
  const method = input.method.toUpperCase();
  const safe = method === 'GET' || method === 'HEAD';
  // A 307/308 needs the body again, and the first send consumes it: keep a copy (bodies are small JSON).
  const body = !safe && input.body !== null ? await input.clone().arrayBuffer() : undefined;
  let request = input.redirect === 'manual' ? input : new Request(input, { redirect: 'manual' });
  for (let hop = 0; ; hop += 1) {
    // The caller's abort ends the call even while a custom fetch holds the request (until-aborted.ts).
    const response = await untilAborted(settings.fetch(request, init), input.signal);
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    let target: URL;
    try {
      target = new URL(location, request.url);
    } catch {
      return response; // not a usable Location: reported as the 3xx status it is
    }
    // Not awaited: a cancelled tee (as mocks and some fetch wrappers make) may never settle.
    void response.body?.cancel().catch(() => undefined);
    const path = settings.relativePath(input.url);
    const context = {
      method,
      path,
      status: response.status,
      location: settings.mask(target.toString()),
      origin: settings.mask(target.origin),
    };
    if (target.origin !== origin) {
      throw new RedirectError(
        `${method} ${path} was redirected (${response.status}) to another origin, ${context.origin}; ` +
          `not followed, so the API key is not sent there (point baseUrl at the service's real origin)`,
        context,
      );
    }
    if (!safe && !METHOD_KEEPING.has(response.status)) {
      throw new RedirectError(
        `${method} ${path} was redirected with ${response.status}, which turns it into a GET; not followed`,
        context,
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new RedirectError(`${method} ${path}: more than ${MAX_REDIRECTS} redirects; gave up`, context);
    }
    // The path may hold the key too (a server that puts it there): masked as the error's location is.
    logTo(settings.logger, 'info', 'service redirected; following within its origin', {
      method,
      status: response.status,
      location: settings.mask(`${target.origin}${target.pathname}`),
    });
    request = new Request(target, {
      method,
      headers: request.headers,
      body,
      signal: request.signal,
      redirect: 'manual',
    });
  }
}
