/** What the page's tests share: the app with the page mounted on its own port, and the page's header. */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../src/app.js';
import { mountWebUi } from '../src/web/index.js';
import type { TestServer } from './helpers.js';

/** The reference server's app with the page mounted, on its own port (app.ts may not mount it yet). */
export async function startUi(t: TestServer): Promise<{ url: string; close(): Promise<void> }> {
  const app = createApp(t.server.runtime);
  mountWebUi(app, t.server.runtime);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The header the page sends with every call (the server refuses its routes without it). */
export const UI = { 'X-Finsync-UI': '1', 'content-type': 'application/json' };
