import { existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, useTempDirs } from '../src/index.js';

describe('temporary directories', () => {
  it('makes an empty directory named after its label, and removes it with what it holds', () => {
    const dir = makeTempDir('label');
    expect(basename(dir)).toMatch(/^finsync-label-/);
    writeFileSync(join(dir, 'file.txt'), 'x');
    removeTempDir(dir);
    expect(existsSync(dir)).toBe(false);
    // Gone already, or never made: nothing to do, no error.
    removeTempDir(dir);
    removeTempDir(undefined);
  });

  describe('useTempDirs', () => {
    const tempDir = useTempDirs('use');
    let madeInFirstTest: string[] = [];

    it('makes a fresh directory for each call', () => {
      madeInFirstTest = [tempDir(), tempDir()];
      expect(madeInFirstTest[0]).not.toBe(madeInFirstTest[1]);
      for (const dir of madeInFirstTest) {
        expect(existsSync(dir)).toBe(true);
        writeFileSync(join(dir, 'file.txt'), 'x');
      }
    });

    it('has removed them after the test that made them', () => {
      expect(madeInFirstTest).toHaveLength(2);
      for (const dir of madeInFirstTest) expect(existsSync(dir)).toBe(false);
    });
  });
});
