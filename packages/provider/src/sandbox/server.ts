import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** Anything with the sandbox's request handler; SandboxProvider in practice. */
export interface SandboxRequestHandler {
  /** Answers one HTTP request. */
  handle(request: Request): Promise<Response>;
}

/** Where `startSandboxServer` listens, and under which path it serves the API. */
export interface SandboxServerOptions {
  /** Default '127.0.0.1'. */
  host?: string | undefined;
  /** Default 0 (an ephemeral port). */
  port?: number | undefined;
  /** Default '/api/v1'. Requests outside it get 404. */
  basePath?: string | undefined;
}

/** A running sandbox server, as `startSandboxServer` resolves it. */
export interface SandboxServer {
  /** e.g. 'http://127.0.0.1:54321/api/v1' (no trailing slash): pass it as the client's `baseUrl`. */
  baseUrl: string;
  /** The port it listens on (the one chosen by the OS when `port` was 0). */
  port: number;
  /** Stops listening and closes open connections, keep-alive ones included. */
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

async function writeResponse(response: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (response.type === 'error') {
    // What a dropped connection looks like to the client: no status, no body.
    res.socket?.destroy();
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (signal.aborted) {
        await reader.cancel();
        return;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drainOrClose(res);
    }
    res.end();
  } finally {
    reader.releaseLock();
  }
}

/** Serves `provider.handle` over real HTTP, for clients that cannot be intercepted by MSW. */
export async function startSandboxServer(
  provider: SandboxRequestHandler,
  { host = '127.0.0.1', port = 0, basePath = '/api/v1' }: SandboxServerOptions = {},
): Promise<SandboxServer> {
  // '' makes Node listen on every interface: the sandbox is for this machine unless a host is named.
  if (typeof host !== 'string' || host === '')
    throw new TypeError("host must be a host name or address, e.g. '127.0.0.1' (the default)");
  // '/api/v1', 'api/v1/' and '/api/v1/' are the same path; '' and '/' the root.
  const trimmed = basePath.replace(/^\/+|\/+$/g, '');
  const prefix = trimmed === '' ? '' : `/${trimmed}`;
  let origin = '';
  const server = createServer((req, res) => {
    const controller = new AbortController();
    // 'close' on the response before it finished means the client went away.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new DOMException('The client disconnected', 'AbortError'));
    });
    const handle = async (): Promise<void> => {
      const request = toRequest(req, origin, controller.signal);
      const pathname = new URL(request.url).pathname;
      const inside = prefix === '' || pathname === prefix || pathname.startsWith(`${prefix}/`);
      const response = inside
        ? await provider.handle(request)
        : Response.json({ error: 'Not Found', message: `No route matches ${pathname}.` }, { status: 404 });
      await writeResponse(response, res, controller.signal);
    };
    handle().catch((error: unknown) => {
      if (controller.signal.aborted) return;
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: 'Internal Server Error', message: String(error) }));
      } else {
        res.destroy();
      }
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${urlHost}:${address.port}`;
  return {
    baseUrl: `${origin}${prefix}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets from fetch would otherwise hold close() open indefinitely.
        server.closeAllConnections();
      }),
  };
}

/** Waits for the socket to take more, or to go away, without leaving a listener behind per chunk. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
