import { MemoryStorage } from '@finsync/sync';
import { oddProviderTextRuns } from '@finsync/test-utils/odd-provider-text';
import { expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';

it('stores NUL, lone surrogates, a 3,000-character id and a refusal with a NUL as the memory storage does', async () => {
  const sqlite = new SqliteStorage({ filename: ':memory:' });
  try {
    const inSqlite = await oddProviderTextRuns(sqlite);
    expect(inSqlite).toEqual(await oddProviderTextRuns(new MemoryStorage()));
    // A lone surrogate stored as U+FFFD made the row's key unfindable: a duplicate add every run.
    expect(inSqlite.issues.slice(0, 2)).toEqual([[], []]);
    expect(inSqlite.skipped.slice(0, 2)).toEqual([['AccountIdTooLongError'], ['AccountIdTooLongError']]);
    expect(inSqlite.holdingKeys).toEqual(['id:h1\uFFFD', 'id:h2\uFFFD']);
    expect(inSqlite.againChanged).toEqual([0, 0, 0]);
    expect(inSqlite.transactions.map((t) => t.providerId)).toContain('tx_\uFFFD');
  } finally {
    await sqlite.close();
  }
});
