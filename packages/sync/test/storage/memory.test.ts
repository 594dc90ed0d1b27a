import { runStorageConformance } from '../testing/index.js';
import { MemoryStorage } from './memory.js';

runStorageConformance('MemoryStorage', async () => ({ storage: new MemoryStorage() }));
