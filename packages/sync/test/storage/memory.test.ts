import { runStorageConformance } from '../../src/testing/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';

runStorageConformance('MemoryStorage', async () => ({ storage: new MemoryStorage() }));
