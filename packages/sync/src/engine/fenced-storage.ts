import type { Storage, WriteBatch } from '../storage/types.js';

/** Adds the lease fence to every write of one run. */
export function fencedStorage(storage: Storage, connectionId: string, workerId: string): Storage {
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'apply') {
        return (batch: WriteBatch) => target.apply({ ...batch, fence: { connectionId, workerId } });
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
