/**
 * The sandbox provider in its own process (sandbox-server.ts), so the server's CPU and memory are not
 * the measured process's (they still share the machine's cores, which is part of the noise).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { SandboxOptions } from '@finsync/provider/sandbox';

export interface SandboxProcess {
  baseUrl: string;
  /** The server's process id, for reading its CPU time from /proc. */
  pid: number;
  /** Moves the sandbox's clock on; resolves to its new "today". */
  advance(days: number): Promise<string>;
  /** Renders the answers of these paths (with their query) ahead, to be served as stored bytes. */
  warm(paths: readonly string[]): Promise<number>;
  stop(): Promise<void>;
}

export async function startSandboxProcess(options: SandboxOptions): Promise<SandboxProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@finsync/source',
      '--import',
      'tsx',
      new URL('./sandbox-server.ts', import.meta.url).pathname,
      JSON.stringify(options),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () =>
    JSON.parse(((await lines.next()).value as string | undefined) ?? '{}') as Record<string, string>;
  const { baseUrl } = await next();
  if (!baseUrl) throw new Error('sandbox server did not start');
  return {
    baseUrl,
    pid: child.pid!,
    async advance(days) {
      child.stdin.write(`advance ${days}\n`);
      return (await next()).today!;
    },
    async warm(paths) {
      child.stdin.write(`warm ${JSON.stringify(paths)}\n`);
      return Number((await next()).warmed);
    },
    async stop() {
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}
