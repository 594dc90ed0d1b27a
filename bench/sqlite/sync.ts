/**
 * The full sync into SQLite, then a no-op re-sync and an incremental day, in one child
 * process with its own sandbox server (fresh, at the same "today", for every run).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStorage } from '@finsync/sqlite';
import { sandboxOptions, type SyncMode } from '../data/data-set.js';
import { startSandboxProcess } from '../data/sandbox-process.js';
import { runEngine, type EngineRunResult } from '../engine/run-engine.js';
import { tempDir } from '../harness/temp-dir.js';

export interface SqliteSyncConfig {
  rows: number;
  mode: SyncMode;
  fullOnly: boolean;
  /** Rows of the shapes off the documented one (the sandbox's `wireVariants`): not in `npm run bench`. */
  wireVariants?: boolean;
}

export interface SqliteSyncResult extends EngineRunResult {
  /** Database file size after the first sync, WAL included. */
  databaseMiB: number;
  /**
   * Rows the no-op re-sync changed in any table (SQLite's total_changes): bookkeeping such as the
   * connection's last-run time and each account's last-synced time, which carry no feed entry.
   */
  noopBookkeepingRows?: number;
}

function fileMiB(path: string): number {
  return existsSync(path) ? statSync(path).size / 2 ** 20 : 0;
}

export async function sqliteSync(config: SqliteSyncConfig): Promise<SqliteSyncResult> {
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows, config.wireVariants));
  const tmp = tempDir();
  const filename = join(tmp.dir, 'bench.db');
  const storage = new SqliteStorage({ filename });
  try {
    const totalChanges = () =>
      storage.database.prepare<[], number>('SELECT total_changes()').pluck().get() ?? 0;
    let changesBefore = 0;
    let noopBookkeepingRows: number | undefined;
    const result = await runEngine({
      storage,
      sandbox,
      mode: config.mode,
      fullOnly: config.fullOnly,
      onStep: (step) => {
        if (step === 'before-noop') changesBefore = totalChanges();
        else noopBookkeepingRows = totalChanges() - changesBefore;
      },
    });
    const databaseMiB = fileMiB(filename) + fileMiB(`${filename}-wal`);
    return { ...result, databaseMiB, ...(noopBookkeepingRows === undefined ? {} : { noopBookkeepingRows }) };
  } finally {
    await storage.close();
    await sandbox.stop();
    tmp.remove();
  }
}
