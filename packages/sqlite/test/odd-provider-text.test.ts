import { ProviderClient } from '@finsync/provider';
import { MemoryStorage, SyncEngine, type Storage } from '@finsync/sync';
import { oddProviderTextRuns } from '@finsync/test-utils';
import { expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';

function runsOn(storage: Storage) {
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date('2026-06-03T12:00:00Z'), today: () => '2026-06-03' },
  });
  return oddProviderTextRuns(storage, {
    addConnection: ({ id, fetch }) =>
      engine.addConnection({
        id,
        client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch }),
      }),
    sync: (id) => engine.sync(id),
  });
}

it('stores NUL, lone surrogates, a 3,000-character id and a refusal with a NUL as the memory storage does', async () => {
  const sqlite = new SqliteStorage({ filename: ':memory:' });
  try {
    const inSqlite = await runsOn(sqlite);
    expect(inSqlite).toEqual(await runsOn(new MemoryStorage()));
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
