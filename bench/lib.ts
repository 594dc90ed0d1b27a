import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { SandboxAccountSpec, SandboxOptions } from '@finsync/provider/sandbox';

export interface SandboxProcess {
  baseUrl: string;
  advance(days: number): Promise<string>;
  stop(): Promise<void>;
}

/** Starts bench/sandbox-server.ts in a child process. */
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
    async advance(days) {
      child.stdin.write(`advance ${days}\n`);
      return (await next()).today!;
    },
    async stop() {
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}

/** Ten busy current accounts, sized so the whole history holds about `rows` transactions. */
export function heavyAccounts(
  rows: number,
  historyDays: number,
): { accounts: SandboxAccountSpec[]; transactionsPerDay: number } {
  const count = 10;
  const perDay = rows / (count * historyDays);
  const accounts: SandboxAccountSpec[] = Array.from({ length: count }, (_, i) => ({
    id: 9000 + i,
    name: `Busy Account ${i + 1}`,
    institutionName: 'Bench Bank',
    provider: 'gocardless',
    currency: i % 3 === 0 ? 'EUR' : 'GBP',
    profile: 'current',
    transactionsPerDay: perDay,
  }));
  return { accounts, transactionsPerDay: perDay };
}

export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
  return value;
}
