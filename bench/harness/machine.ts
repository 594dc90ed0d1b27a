/** The machine and the working tree a run measured, stored with its figures. */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import Database from 'better-sqlite3';
import type { MachineInfo } from '../report/results.js';

export function machineInfo(postgres: string | null): MachineInfo {
  const require = createRequire(import.meta.url);
  const db = new Database(':memory:');
  const sqlite = db.prepare<[], string>('SELECT sqlite_version()').pluck().get() ?? 'unknown';
  db.close();
  let commit: string | null = null;
  let dirtyPackages = false;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    dirtyPackages =
      execFileSync('git', ['status', '--porcelain', '--', 'packages'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    // Not a git checkout: fine.
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    sqlite,
    betterSqlite3: (require('better-sqlite3/package.json') as { version: string }).version,
    postgres,
    commit,
    dirtyPackages,
    loadAverageAtStart: loadAverage(),
  };
}

/** 1/5/15-minute load averages, to two decimals. */
export function loadAverage(): number[] {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}
