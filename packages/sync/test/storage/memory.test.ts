import { describe, expect, it } from 'vitest';
import { fixtures, runStorageConformance, runWorkQueueConformance } from '../../src/testing/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';

runStorageConformance('MemoryStorage', async () => ({ storage: new MemoryStorage() }));
runWorkQueueConformance('MemoryStorage', async () => ({ storage: new MemoryStorage() }));

describe('MemoryStorage, beyond the shared contract', () => {
  it('keeps each instance to itself: a new one starts empty', async () => {
    const first = new MemoryStorage();
    await first.init();
    await first.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
    const second = new MemoryStorage();
    await second.init();
    expect(await first.getConnection('c1')).toMatchObject({ id: 'c1' });
    expect(await second.getConnection('c1')).toBeUndefined();
    expect(await second.lastSeq()).toBe(0);
  });
});
