/** Refuses a JSON body holding text no database stores as sent (see input.ts), before anything reads it. */
import type { MiddlewareHandler } from 'hono';
import { assertWellFormedText } from '../../input.js';
import type { AppEnv } from '../env.js';
import { readJsonBody } from '../json-body.js';

export function wellFormedJson(): MiddlewareHandler<AppEnv> {
  return async function refuseMalformedText(c, next) {
    if (/^application\/([\w.+-]*\+)?json\b/i.test(c.req.header('content-type') ?? '')) {
      // Parsed once for every check; a body that is not JSON (or not UTF-8) is the validator's to answer (400).
      const body = await readJsonBody(c);
      if (body.ok) assertWellFormedText(body.value);
    }
    await next();
  };
}
