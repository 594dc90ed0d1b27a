/**
 * Child processes of the fleet run (the provider, each worker). Every child prints JSON lines; the
 * last one is its current counters.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface JsonLineProcess<T> {
  /** The first line (what the child says when it is ready). */
  ready: Record<string, unknown>;
  /** The newest counters line. */
  latest(): T | undefined;
  stop(): Promise<void>;
}

export async function spawnJsonLines<T>(script: string, argument: unknown): Promise<JsonLineProcess<T>> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      '--conditions=@finsync/source',
      '--import',
      'tsx',
      new URL(script, import.meta.url).pathname,
      JSON.stringify(argument),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] } as never,
  ) as ChildProcessWithoutNullStreams;
  const lines = createInterface({ input: child.stdout });
  let latest: T | undefined;
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
  });
  lines.on('line', (line) => {
    latest = JSON.parse(line) as T;
  });
  return {
    ready,
    latest: () => latest,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
