/**
 * The checks of every `/api/v1` route, in the service's order: key (401) → per-key rate limit
 * (429) → scope (403). They run per route, after routing, so an unknown route is a 404 whatever
 * the key.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';
import { AlignedWindowStore } from './hour-windows.js';
import type { AppStore } from '../../store/types.js';
import { authenticate, type Principal } from '../../users.js';
import type { AppEnv } from '../env.js';
import { problem } from '../problem-response.js';

export interface RateLimitOptions {
  /** Requests per key per window; `undefined`: unlimited, as a self-hosted service. */
  limit?: number | undefined;
  /** Default one hour, as the service. */
  windowMs?: number | undefined;
  /** The clock the windows are counted by; default `Date.now`. Tests pin it so that none crosses a window's end. */
  now?: (() => number) | undefined;
}

export type Scope = 'read' | 'write';

/** One limiter per app: its counters are per key, in this process (several instances each count their own). */
export function createAuth(store: AppStore, rateLimit: RateLimitOptions) {
  const windowMs = rateLimit.windowMs ?? 3_600_000;
  const now = rateLimit.now ?? Date.now;
  const limiter =
    rateLimit.limit === undefined
      ? undefined
      : rateLimiter<AppEnv>({
          windowMs,
          limit: rateLimit.limit,
          store: new AlignedWindowStore(windowMs, { now }),
          standardHeaders: false,
          keyGenerator: (c) => c.get('principal').keyId,
          handler: (c) => {
            const info = c.get('rateLimit' as never) as { resetTime?: Date } | undefined;
            const seconds = resetSeconds(info?.resetTime, windowMs, now);
            c.header('X-RateLimit-Limit', String(rateLimit.limit));
            c.header('X-RateLimit-Remaining', '0');
            c.header('X-RateLimit-Reset', String(seconds));
            c.header('Retry-After', String(seconds));
            return c.json(
              {
                error: 'rate_limit_exceeded',
                message: `Rate limit exceeded. Try again in ${seconds} seconds.`,
                details: { limit: rateLimit.limit, current: rateLimit.limit, reset_in_seconds: seconds },
                request_id: c.get('requestId'),
              },
              429,
            );
          },
        });

  /** Rate-limit headers, then the scope; set on `c.res` rather than returned, as the rate limiter returns nothing. */
  async function checkScope(c: Context<AppEnv>, next: Next, scope: Scope): Promise<void> {
    if (limiter) {
      const info = c.get('rateLimit' as never) as { remaining: number; resetTime?: Date } | undefined;
      if (info) {
        c.header('X-RateLimit-Limit', String(rateLimit.limit));
        c.header('X-RateLimit-Remaining', String(info.remaining));
        c.header('X-RateLimit-Reset', String(resetSeconds(info.resetTime, windowMs, now)));
      }
    } else {
      // What a self-hosted service answers: no limit.
      c.header('X-RateLimit-Limit', 'Infinity');
      c.header('X-RateLimit-Remaining', 'Infinity');
      c.header('X-RateLimit-Reset', '0');
    }
    if (scope === 'write' && c.get('principal').scope !== 'read_write')
      c.res = problem(c, 403, 'insufficient_scope', "This action requires the 'write' scope");
    else await next();
  }

  // One middleware per scope, made once: without a rate limit, a request creates no closure here.
  /**
   * `answer`, counted against `principal`'s key as an API request is: for the page's routes, which
   * find their key through the session cookie rather than the header. A 429 when over the limit.
   */
  async function withinLimit(
    c: Context,
    principal: Principal,
    answer: () => Promise<Response>,
  ): Promise<Response> {
    if (!limiter) return answer();
    (c as Context<AppEnv>).set('principal', principal);
    let answered: Response | undefined;
    const refused = await limiter(c as Context<AppEnv>, async () => {
      answered = await answer();
    });
    return (refused as Response | undefined) ?? answered!;
  }

  const middleware = {} as Record<Scope, MiddlewareHandler<AppEnv>>;
  for (const scope of ['read', 'write'] as const) {
    middleware[scope] = async function authorize(c, next) {
      const principal = await authenticate(store, c.req.header('x-api-key'));
      if (!principal)
        return problem(c, 401, 'unauthorized', 'Access token or API key is invalid, expired, or missing');
      c.set('principal', principal);
      if (!limiter) return checkScope(c, next, scope);
      return limiter(c, () => checkScope(c, next, scope));
    };
  }
  return {
    requireKey: (scope: Scope): MiddlewareHandler<AppEnv> => middleware[scope],
    withinLimit,
  };
}

/** `createAuth`'s `withinLimit`. */
export type WithinLimit = ReturnType<typeof createAuth>['withinLimit'];

function resetSeconds(resetTime: Date | undefined, windowMs: number, now: () => number): number {
  const ms = resetTime ? resetTime.getTime() - now() : windowMs;
  return Math.max(1, Math.ceil(ms / 1000));
}
