/**
 * Redirects, followed by hand so the API key stays within the provider's host family.
 *
 * fetch's own `redirect: 'follow'` re-sends every header except `Authorization` (and cookies) to
 * wherever `Location` points, `x-api-key` included. So requests go out with `redirect: 'manual'` and
 * this wrapper follows a redirect only within the base URL's host family (`lunchflow.app` and
 * `www.lunchflow.app` are one), up to 5 hops; anything else is a `RedirectError`, nothing sent there.
 * The provider is only ever called with GET, so every redirect status may be followed as one.
 */
import { logTo, untilAborted } from '@finsync/internals/http';
import { RedirectError } from './errors.js';
import type { ProviderLogger } from './logger.js';

export interface RedirectSettings {
  fetch: typeof globalThis.fetch;
  /** The provider root; only its host family receives requests (and the key). */
  baseUrl: string;
  /** Masks the API key in text that ends up in an error. */
  mask: (text: string) => string;
  /** `/accounts/…?…` for a request URL, as errors show paths. */
  relativePath: (url: string) => string;
  logger: ProviderLogger | undefined;
}

const MAX_REDIRECTS = 5;

/** The scheme, the host without a leading `www.`, and the port. */
function hostFamily(url: URL): string {
  return `${url.protocol}//${url.hostname.toLowerCase().replace(/^www\./, '')}:${url.port}`;
}

/** `fetch`, following only redirects within the provider's host family (see the module comment). */
export async function fetchWithinHostFamily(
  settings: RedirectSettings,
  input: Request,
  init?: RequestInit,
): Promise<Response> {
  const baseUrl = new URL(settings.baseUrl);
  const baseFamily = hostFamily(baseUrl);
  let request = input;
  for (let hop = 0; ; hop += 1) {
    // The caller's abort ends the call even while a custom fetch holds the request (until-aborted.ts).
    const response = await untilAborted(settings.fetch(request, init), input.signal);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) {
      return response;
    }
    let target: URL;
    try {
      target = new URL(location, request.url);
    } catch {
      // Not a usable Location: reported as the 3xx status it is, not as a connection that failed
      // (which would be retried, spending the provider's rate limit on an answer that will not change).
      return response;
    }
    // Not awaited: a cancelled tee (as mocks and some fetch wrappers make) may never settle.
    void response.body?.cancel().catch(() => undefined);
    const context = {
      method: request.method,
      path: settings.relativePath(input.url),
      location: settings.mask(target.toString()),
      status: response.status,
    };
    if (hostFamily(target) !== baseFamily) {
      throw new RedirectError(
        `provider redirected ${request.method} ${context.path} to ${context.location}, outside ${baseUrl.host}; not followed`,
        context,
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new RedirectError(`too many redirects for ${request.method} ${context.path}`, context);
    }
    // The path may hold the key too (a server that puts it there): masked as the error's location is.
    logTo(settings.logger, 'info', 'provider redirected; following within the same host', {
      status: response.status,
      location: settings.mask(target.origin + target.pathname),
    });
    request = new Request(target, {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      redirect: 'manual',
    });
  }
}
