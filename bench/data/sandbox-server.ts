/**
 * Serves a sandbox provider over HTTP in its own process, so a benchmark measures the client side
 * (CPU and memory) without the server sharing its event loop. Prints the base URL on stdout, then
 * serves until stdin closes or it gets SIGTERM.
 *
 * Usage: sandbox-server.ts '{"seed":1,"accounts":[...],...}'
 */
import { createInterface } from 'node:readline';
import { API_KEY } from './data-set.js';
import { pathOf } from './request-log.js';
import { SandboxProvider, startSandboxServer, type SandboxOptions } from '@finsync/provider/sandbox';

const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
const sandbox = new SandboxProvider(options);
// Answers rendered ahead ("warm" command, bench:timeline --cached): served as stored bytes, so the
// sandbox's CPU during a sync is what a remote provider's would cost this machine (its socket writes).
const rendered = new Map<string, { status: number; headers: Headers; body: ArrayBuffer }>();
const server = await startSandboxServer({
  async handle(request) {
    // Anything but the bench's own GET with its key goes to the sandbox, which judges it as ever.
    const asked = request.method === 'GET' && request.headers.get('x-api-key') === API_KEY;
    const stored = asked ? rendered.get(pathOf(request.url)) : undefined;
    if (!stored) return sandbox.handle(request);
    return new Response(stored.body, { status: stored.status, headers: stored.headers });
  },
});
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));

// Commands from the benchmark, a line each: "advance N" moves the sandbox's clock; "warm [paths]"
// renders those answers ahead.
for await (const line of createInterface({ input: process.stdin })) {
  const [command, arg] = line.trim().split(' ');
  if (command === 'advance') {
    sandbox.advanceDays(Number(arg ?? 1));
    rendered.clear();
    process.stdout.write(`${JSON.stringify({ today: sandbox.today })}\n`);
  }
  if (command === 'warm') {
    const paths = JSON.parse(line.trim().slice('warm '.length)) as string[];
    for (const path of paths) {
      const request = new Request(new URL(path, server.baseUrl), { headers: { 'x-api-key': API_KEY } });
      const response = await sandbox.handle(request);
      rendered.set(path, {
        status: response.status,
        headers: response.headers,
        body: await response.arrayBuffer(),
      });
    }
    process.stdout.write(`${JSON.stringify({ warmed: rendered.size })}\n`);
  }
}
await server.close();
process.exit(0);
