/**
 * Serves a sandbox provider over HTTP in its own process, so a benchmark measures the client side
 * (CPU and memory) without the server sharing its event loop. Prints the base URL on stdout, then
 * serves until stdin closes or it gets SIGTERM.
 *
 * Usage: sandbox-server.ts '{"seed":1,"accounts":[...],...}'
 */
import { SandboxProvider, startSandboxServer, type SandboxOptions } from '@finsync/provider/sandbox';

const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
const sandbox = new SandboxProvider(options);
const server = await startSandboxServer(sandbox);
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);

process.stdin.on('data', (chunk: Buffer) => {
  // Commands from the benchmark: "advance N" moves the sandbox's clock.
  for (const line of chunk.toString().split('\n')) {
    const [command, arg] = line.trim().split(' ');
    if (command === 'advance') {
      sandbox.advanceDays(Number(arg ?? 1));
      process.stdout.write(`${JSON.stringify({ today: sandbox.today })}\n`);
    }
  }
});
const shutdown = () => void server.close().then(() => process.exit(0));
process.stdin.on('end', shutdown);
process.on('SIGTERM', shutdown);
