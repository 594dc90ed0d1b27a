/**
 * The API described: `/api/v1/openapi.json` (OpenAPI 3.1, generated from the routes' own schemas)
 * and `/docs`, a Swagger UI page whose assets this server serves itself (no CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';

/** A Map, not an object: `constructor` or `__proto__` must not be found in it. */
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>finsync reference server — API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="api"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#api', deepLinking: true, tryItOutEnabled: false });`;

/** The page allows only this server's own scripts and styles (Swagger UI needs inline styles). */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** As the page's (web/index.ts): no sniffing, no framing, no address sent on from "Try it out" links. */
const DOCS_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
} as const;

export function docsRoutes(app: OpenAPIHono<AppEnv>, info: { version: string }) {
  const config = {
    openapi: '3.1.0',
    info: {
      title: 'finsync reference server',
      version: info.version,
      description:
        "The personal-finance service API (Sure's /api/v1) on top of the finsync sync engine. Every route but this document and /health needs an `X-Api-Key`.",
    },
  };
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
  });
  app.doc31('/api/v1/openapi.json', config);

  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  for (const path of ['/docs', '/docs/*'])
    app.use(path, async (c, next) => {
      await next();
      for (const [name, value] of Object.entries(DOCS_HEADERS)) c.header(name, value);
    });
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP);
    return c.html(PAGE);
  });
  app.get('/docs/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(INIT);
  });
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS.get(file);
    if (!type) return c.notFound();
    let bytes = cache.get(file);
    if (!bytes) cache.set(file, (bytes = readFileSync(join(root, file))));
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(new Uint8Array(bytes));
  });
}
