import { serve, type ServerType } from '@hono/node-server';
import { createServer, type RequestListener, type ServerOptions } from 'node:http';
import { directTransactionUpdate } from './http/direct-update.js';
import { LIMITS } from './http/limits.js';
import type { AddressInfo } from 'node:net';
import { createApp, REQUEST_TIMEOUT_MS, type HttpOptions } from './app.js';
import { ServerRuntime, type ReferenceServerOptions } from './runtime.js';

export interface RunningServer {
  runtime: ServerRuntime;
  /** e.g. `http://127.0.0.1:3000` */
  url: string;
  /** Stops taking connections, waits for requests in flight, lets a running sync finish (`graceMs`, default 30 s). */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Starts the reference server: database (SQLite, or PostgreSQL with `database`), engine, sandbox (unless disabled) and HTTP. */
export interface StartOptions extends ReferenceServerOptions {
  port?: number;
  host?: string;
  http?: HttpOptions;
  /** How long a slow client may take to send its headers; default 10 s. */
  headersTimeoutMs?: number;
}

/** A start-up failure said in one line (the port, the database, the master key). */
export class StartupError extends Error {}

export async function startReferenceServer(options: StartOptions): Promise<RunningServer> {
  const runtime = new ServerRuntime(options);
  try {
    await runtime.start();
  } catch (error) {
    // Give back what the runtime opened (a PostgreSQL pool would keep the process alive).
    await runtime.close().catch(() => undefined);
    throw error;
  }
  const app = createApp(runtime, options.http);
  // The app's listener, with the ordinary PATCH answered before it (http/direct-update.ts).
  const direct = {
    maxBodyBytes: options.http?.maxBodyBytes ?? LIMITS.bodyBytes,
    requestTimeoutMs: options.http?.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    rateLimited: options.http?.rateLimit?.limit !== undefined,
  };
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  const withDirectUpdate = ((serverOptions: ServerOptions, listener: RequestListener) =>
    createServer(
      // Node checks both timeouts below only this often (30 s by default): a slow client would hold
      // its socket for up to 30 s past them.
      { ...serverOptions, connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs) },
      directTransactionUpdate(runtime, direct, listener) as RequestListener,
    )) as typeof createServer;
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 3000;
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port, hostname: host, createServer: withDirectUpdate }, () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  } catch (error) {
    await runtime.close().catch(() => undefined);
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new StartupError(`port ${port} on ${host} is already in use (set PORT to another one)`, {
        cause: error,
      });
    if (code === 'EACCES')
      throw new StartupError(`not allowed to listen on ${host}:${port} (use a port above 1024)`, {
        cause: error,
      });
    throw error;
  }
  // A slow client may not hold a socket for minutes: headers within 10 s, the whole request in 60 s.
  const http = server as unknown as { headersTimeout: number; requestTimeout: number };
  http.headersTimeout = headersTimeoutMs;
  http.requestTimeout = 60_000;
  const bound = (server.address() as AddressInfo).port;
  return {
    runtime,
    url: `http://${host}:${bound}`,
    async close(closeOptions = {}) {
      // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      await closing;
      await runtime.close(closeOptions);
    },
  };
}

export { ServerRuntime, SANDBOX, SANDBOX_KEY } from './runtime.js';
export type { DatabaseConfig, ReferenceServerOptions } from './runtime.js';
export { databaseFromEnv } from './store/open.js';
