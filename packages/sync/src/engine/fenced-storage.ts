import type { Storage, WriteBatch } from '../storage/types.js';

/**
 * Adds the lease fence to every write of one run, judged at `now()`: the clock the worker took and
 * renews its leases by. Judged by another (the storage's), a worker whose clock runs behind found its
 * fresh lease expired and never committed, and one ahead kept writing past its lease.
 */
export function fencedStorage(
  storage: Storage,
  connectionId: string,
  workerId: string,
  now: () => Date,
): Storage {
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'apply') {
        return (batch: WriteBatch) =>
          target.apply({ ...batch, fence: { connectionId, workerId, at: now().toISOString() } });
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
