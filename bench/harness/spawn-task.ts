/** Runs one measurement (a task of tasks.ts) in a fresh child process and returns its result. */
import { fork } from 'node:child_process';
import { childBundle } from './child-bundle.js';
import type { Tasks } from './tasks.js';

export interface SpawnOptions {
  /** Write a V8 CPU profile of the child into this directory (`node --cpu-prof`). */
  cpuProfDir?: string;
  /** More Node flags for the child, e.g. `--max-old-space-size=64`. */
  nodeFlags?: string[];
}

export async function runTask<N extends keyof Tasks>(
  name: N,
  config: Parameters<Tasks[N]>[0],
  options: SpawnOptions = {},
): Promise<Awaited<ReturnType<Tasks[N]>>> {
  // --expose-gc only lets the child collect garbage once its measurement is over (engine/run-engine.ts).
  const execArgv = ['--expose-gc'];
  if (options.cpuProfDir) execArgv.push('--cpu-prof', '--cpu-prof-dir', options.cpuProfDir);
  execArgv.push(...(options.nodeFlags ?? []));
  const child = fork(await childBundle(), [name, JSON.stringify(config)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Settles on exit, not on the message: the next measurement must not overlap this process's
  // teardown, and a CPU profile is only written as the process exits.
  return new Promise<Awaited<ReturnType<Tasks[N]>>>((resolve, reject) => {
    let reply: { ok: boolean; result?: unknown; error?: string } | undefined;
    child.on('message', (message: typeof reply) => (reply = message));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.result as Awaited<ReturnType<Tasks[N]>>);
      else if (reply) reject(new Error(`task ${name} failed in its child process:\n${reply.error}`));
      else reject(new Error(`task ${name} exited (${signal ?? code}) without a result`));
    });
  });
}
