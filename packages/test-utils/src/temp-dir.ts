/**
 * Temporary directories for tests: made under the system's temp directory, named after what
 * made them (`finsync-<label>-XXXXXX`, easy to spot when one is left behind), and removed with
 * everything in them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A fresh empty directory; the caller removes it (`removeTempDir`). */
export function makeTempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `finsync-${label}-`));
}

/** Removes a directory and everything in it; nothing happens when it is already gone or undefined. */
export function removeTempDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/**
 * For a test file, called at its top level (or in a describe): returns a function that makes
 * temporary directories, and every directory made during a test (its beforeEach included) is removed
 * after that test. After-hooks run last-registered first, so an afterEach registered after this call
 * (closing a database file, say) runs before its directory goes.
 */
export function useTempDirs(label: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) removeTempDir(dir);
  });
  return () => {
    const dir = makeTempDir(label);
    made.push(dir);
    return dir;
  };
}
