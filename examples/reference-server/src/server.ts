import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { ReferenceServerCore, type ReferenceServerOptions } from './core.js';

export interface RunningServer {
  core: ReferenceServerCore;
  /** e.g. `http://127.0.0.1:3000` */
  url: string;
  close(): Promise<void>;
}

/** Starts the reference server: database (SQLite, or PostgreSQL with `database`), engine, sandbox (unless disabled) and HTTP. */
export async function startReferenceServer(
  options: ReferenceServerOptions & { port?: number; host?: string },
): Promise<RunningServer> {
  const core = new ReferenceServerCore(options);
  try {
    await core.start();
  } catch (error) {
    // Give back what the core opened (a PostgreSQL pool would keep the process alive).
    await core.close().catch(() => undefined);
    throw error;
  }
  const app = createApp(core);
  const host = options.host ?? '127.0.0.1';
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 3000, hostname: host }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    core,
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}

export { ReferenceServerCore, SANDBOX, SANDBOX_KEY } from './core.js';
export type { DatabaseConfig, ReferenceServerOptions } from './core.js';
export { databaseFromEnv } from './store/open.js';
