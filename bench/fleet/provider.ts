/**
 * The fleet's provider, in its own process: the sandbox's data behind what the real provider adds
 * at scale — a fixed latency on every request and a per-key limit (a sliding minute). Every
 * connection has its own key (`fleet-<connection id>`); all of them see the same accounts.
 * Prints its base URL, then one line of counters a second, until stdin closes.
 *
 * Usage: provider.ts '{"latencyMs":150,"perKeyPerMinute":100,"sandbox":{...}}'
 */
import { SandboxProvider, startSandboxServer, type SandboxOptions } from '@finsync/provider/sandbox';

interface FleetProviderOptions {
  latencyMs: number;
  perKeyPerMinute: number;
  sandbox: SandboxOptions;
}

const options = JSON.parse(process.argv[2] ?? '{}') as FleetProviderOptions;
const SANDBOX_KEY = 'fleet-sandbox';
const sandbox = new SandboxProvider({ ...options.sandbox, apiKey: SANDBOX_KEY, logLimit: 1 });
const recent = new Map<string, number[]>();
let served = 0;
let limited = 0;
let refused = 0;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** Sliding one-minute window per key: the request's admission time, or the seconds to wait. */
function admit(key: string, now: number): number | undefined {
  let times = recent.get(key);
  if (!times) recent.set(key, (times = []));
  while (times.length > 0 && times[0]! <= now - 60_000) times.shift();
  if (times.length >= options.perKeyPerMinute)
    return Math.max(1, Math.ceil((times[0]! + 60_000 - now) / 1000));
  times.push(now);
  return undefined;
}

const handler = {
  async handle(request: Request): Promise<Response> {
    const key = request.headers.get('x-api-key') ?? '';
    if (!key.startsWith('fleet-')) {
      refused += 1;
      return json(401, { error: 'Unauthorized' });
    }
    const wait = admit(key, Date.now());
    if (wait !== undefined) {
      limited += 1;
      return json(429, { error: 'Too Many Requests' }, { 'retry-after': String(wait) });
    }
    served += 1;
    await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const headers = new Headers(request.headers);
    headers.set('x-api-key', SANDBOX_KEY);
    return sandbox.handle(
      new Request(request.url, { method: request.method, headers, signal: request.signal }),
    );
  },
};

const server = await startSandboxServer(handler);
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);

const started = process.cpuUsage();
const report = setInterval(() => {
  const now = Date.now();
  // Keys idle for a minute hold nothing worth keeping.
  for (const [key, times] of recent)
    if (times.length === 0 || times.at(-1)! <= now - 60_000) recent.delete(key);
  const cpu = process.cpuUsage(started);
  process.stdout.write(
    `${JSON.stringify({ at: now, served, limited, refused, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
  );
}, 1000);

const shutdown = () => {
  clearInterval(report);
  void server.close().then(() => process.exit(0));
};
process.stdin.on('end', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
