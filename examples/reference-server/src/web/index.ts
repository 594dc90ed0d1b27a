/**
 * The page at `/`: a user's data at a glance after signing in with an API key. Plain HTML, one small
 * script and one stylesheet, all served from here (no build step, no CDN).
 *
 * The key travels once, in the body of `POST /ui/session`; the browser then holds only a random
 * session token in an HttpOnly, SameSite=Strict cookie (see sessions.ts). The page's data comes from
 * `/ui/api/*`, authorised by that cookie; every request that changes something also needs the
 * `X-Finsync-UI` header, which a cross-site form cannot send. Keys and tokens are never logged.
 */
import { readFileSync } from 'node:fs';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { ServerRuntime } from '../runtime.js';
import { hashApiKey } from '../crypto.js';
import { bodySizeLimit } from '../http/middleware/edge.js';
import type { AppEnv } from '../http/env.js';
import { problem } from '../http/problem-response.js';
import type { WithinLimit } from '../http/middleware/auth.js';
import { ApiProblem } from '../problem.js';
import { authenticate } from '../users.js';
import { overview } from './overview.js';
import { SessionStore, type Session } from './sessions.js';

export { SessionStore } from './sessions.js';

export interface WebUiOptions {
  /** Default: a store with 12-hour sessions. */
  sessions?: SessionStore;
  /** The API's per-key rate limit, which the page's requests count against too; default none. */
  withinLimit?: WithinLimit;
}

/** The largest body a page request sends (a sign-in's `{"api_key": …}`): anything larger is refused unread. */
const MAX_PAGE_BODY_BYTES = 4096;

const COOKIE = 'finsync_ui';
/**
 * The cookie's name over HTTPS: a `__Host-` cookie is taken by browsers only from this host, with
 * `Secure` and `Path=/` and no `Domain`, so a sibling subdomain cannot plant one beside it.
 */
const HOST_COOKIE = `__Host-${COOKIE}`;

/** The values of the request's cookies named `name`, in the order sent. */
function cookiesNamed(c: Context, name: string): string[] {
  const found: string[] = [];
  for (const part of (c.req.header('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) found.push(part.slice(at + 1).trim());
  }
  return found;
}

/**
 * The session token of the request, when it carries exactly one session cookie that counts. A
 * `__Host-finsync_ui` always counts: only this host can set it, over HTTPS. A plain `finsync_ui` counts
 * only when the request is not HTTPS: another host under the same domain can set one, and earlier
 * releases set it over HTTPS too. Two that count (one planted with a longer path, which browsers send
 * first) are no session: the first one sent would otherwise sign the page in as whoever planted it.
 */
function sessionToken(c: Context): string | undefined {
  const found = [...cookiesNamed(c, HOST_COOKIE), ...(isHttps(c) ? [] : cookiesNamed(c, COOKIE))];
  return found.length === 1 ? found[0] : undefined;
}

const CSRF_HEADER = 'x-finsync-ui';

/** Nothing but this server's own files; no inline script or style, no framing, no plugins. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  // The script builds the page with DOM calls only: any HTML-from-string sink would throw.
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cross-Origin-Opener-Policy', 'same-origin');
  c.header('Cross-Origin-Resource-Policy', 'same-origin');
  c.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
};

function asset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
}

// The API's error body, `request_id` included (the edge's request id, as every answer's header has it).
const fail = (c: Context, status: number, error: string, message: string) =>
  problem(c as Context<AppEnv>, status, error, message);

/**
 * A request that changes something must come from the page itself: with the custom header (a
 * cross-site form cannot set one, and a cross-site script cannot without a preflight this server
 * never answers), and not from another site when the browser says where it comes from.
 *
 * `Sec-Fetch-Site` is the browser's own word, which no page can set, and it holds behind a reverse
 * proxy: the URL this server sees there is `http://` and may name the upstream's host, so an `Origin`
 * compared with it would refuse every sign-in through a TLS proxy. Only a browser that sends no
 * `Sec-Fetch-Site` has its `Origin`'s host compared, with the host the browser asked for
 * (`X-Forwarded-Host` from a proxy, else `Host`); its scheme is left out for the same reason.
 */
function fromPage(c: Context): boolean {
  if (c.req.header(CSRF_HEADER) !== '1') return false;
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false; // `null` (a sandboxed frame, a file) or not a URL
  }
  const asked = c.req.header('x-forwarded-host')?.split(',')[0]?.trim() || c.req.header('host');
  return asked !== undefined && originHost === asked.toLowerCase();
}

function isHttps(c: Context): boolean {
  // A proxy chain lists a protocol per hop, the client's first.
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return new URL(c.req.url).protocol === 'https:' || forwarded === 'https';
}

/** Mounts the page and its routes: call it before the API routes. */
export function mountWebUi(app: Hono<any>, runtime: ServerRuntime, options: WebUiOptions = {}): void {
  const sessions = options.sessions ?? new SessionStore();
  const files = {
    html: asset('index.html'),
    js: asset('app.js'),
    css: asset('app.css'),
    icon: asset('icon.svg'),
  };

  /** The session of the request's cookie, if it is live and its key still is, with that key's id. */
  async function session(c: Context): Promise<(Session & { keyId: string }) | undefined> {
    const token = sessionToken(c);
    const found = sessions.get(token);
    if (!found) return undefined;
    const key = await runtime.store.findActiveApiKey(found.keyHash);
    if (!key || key.user_id !== found.userId) {
      sessions.delete(token);
      return undefined;
    }
    return { ...found, keyId: key.id };
  }
  const limited = (c: Context, found: Session & { keyId: string }, answer: () => Promise<Response>) =>
    options.withinLimit
      ? options.withinLimit(c, { userId: found.userId, keyId: found.keyId, scope: found.scope }, answer)
      : answer();

  app.use('/', securityHeaders);
  app.use('/ui/*', securityHeaders);
  app.use('/ui/*', bodySizeLimit(MAX_PAGE_BODY_BYTES));

  const page = (c: Context) => c.html(files.html);
  app.get('/', page);
  const file = (body: string, type: string) => (c: Context) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(body, 200, { 'Content-Type': type });
  };
  app.get('/ui/app.js', file(files.js, 'text/javascript; charset=utf-8'));
  app.get('/ui/app.css', file(files.css, 'text/css; charset=utf-8'));
  app.get('/ui/icon.svg', file(files.icon, 'image/svg+xml'));

  app.post('/ui/session', async (c) => {
    if (!fromPage(c))
      return fail(c, 403, 'forbidden', "Sign in from this server's page: the request did not come from it");
    const text = await c.req.text();
    let key: unknown;
    try {
      key = text.length <= 1024 ? (JSON.parse(text) as { api_key?: unknown })?.api_key : undefined;
    } catch {
      key = undefined;
    }
    const presented = typeof key === 'string' ? key.trim() : undefined;
    const principal = await authenticate(runtime.store, presented);
    if (!principal || !presented) return fail(c, 401, 'unauthorized', 'That API key was not accepted.');
    const token = sessions.create({
      userId: principal.userId,
      scope: principal.scope,
      keyHash: hashApiKey(presented),
    });
    // A __Host- cookie the browser sends proves TLS, whatever the proxy said of this request: the new
    // one replaces it. The other name is expired, so no stale cookie beside it makes two that count.
    const https = isHttps(c) || cookiesNamed(c, HOST_COOKIE).length > 0;
    setCookie(c, https ? HOST_COOKIE : COOKIE, token, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: https,
      maxAge: Math.floor(sessions.ttlMs / 1000),
    });
    deleteCookie(c, https ? COOKIE : HOST_COOKIE, {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      secure: true,
    });
    return c.json({ signed_in: true, can_sync: principal.scope === 'read_write' });
  });

  app.delete('/ui/session', (c) => {
    if (!fromPage(c)) return fail(c, 403, 'forbidden', 'Sign out from the page');
    // Every session the request names ends, whichever name carried it and whatever the scheme said.
    for (const token of [...cookiesNamed(c, HOST_COOKIE), ...cookiesNamed(c, COOKIE)]) sessions.delete(token);
    deleteCookie(c, COOKIE, { path: '/', httpOnly: true, sameSite: 'Strict', secure: isHttps(c) });
    deleteCookie(c, HOST_COOKIE, { path: '/', httpOnly: true, sameSite: 'Strict', secure: true });
    return c.body(null, 204);
  });

  app.get('/ui/api/overview', async (c) => {
    const found = await session(c);
    if (!found) return fail(c, 401, 'unauthorized', 'Sign in with your API key.');
    return limited(c, found, async () => c.json(await overview(runtime, found, c.req.query('account'))));
  });

  app.post('/ui/api/sync', async (c) => {
    if (!fromPage(c)) return fail(c, 403, 'forbidden', 'Sync from the page');
    const found = await session(c);
    if (!found) return fail(c, 401, 'unauthorized', 'Sign in with your API key.');
    if (found.scope !== 'read_write')
      return fail(c, 403, 'insufficient_scope', 'This key is read-only: it cannot start a sync.');
    return limited(c, found, async () => {
      try {
        const result = await runtime.syncUser(found.userId);
        return c.json({ ok: result.ok, outcome: result.outcome });
      } catch (error) {
        if (error instanceof ApiProblem) return fail(c, error.status, error.code, error.message);
        throw error;
      }
    });
  });
}
