/** Refuses a JSON body holding text no database stores as sent (see input.ts), before anything reads it. */
import type { MiddlewareHandler } from 'hono';
import { assertWellFormedText } from '../../input.js';
import type { AppEnv } from '../env.js';

export function wellFormedJson(): MiddlewareHandler<AppEnv> {
  return async function refuseMalformedText(c, next) {
    if (/^application\/([\w.+-]*\+)?json\b/i.test(c.req.header('content-type') ?? '')) {
      // Parsed once and cached by Hono; malformed JSON is the validator's to answer (400).
      const body: unknown = await c.req.json().catch((error: unknown) => {
        if (error instanceof SyntaxError) return undefined;
        throw error; // a body over the limit: the body-limit middleware answers 413
      });
      assertWellFormedText(body);
    }
    await next();
  };
}
