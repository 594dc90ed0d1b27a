/**
 * The work-queue conformance suite: what every `WorkQueue` (the storage `SyncWorker` shares between
 * processes) must do alike, so workers behave the same on any of them.
 *
 * ```ts
 * import { runWorkQueueConformance } from '@finsync/sync/testing';
 * runWorkQueueConformance('MyStorage', async () => ({ storage: new MyStorage(...) }));
 * ```
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../errors.js';
import { MAX_LEASE_MS, type Storage, type WorkQueue } from '../storage/types.js';
import type { ConformanceSubject } from './conformance.js';
import { connectionState } from './fixtures.js';

/** What the factory of {@link runWorkQueueConformance} makes: a conformance subject that is also a queue. */
export interface WorkQueueSubject extends ConformanceSubject {
  storage: Storage & WorkQueue;
}

const MINUTE = 60_000;

/** Registers the work-queue tests; `create` is called before each test and must return empty data. */
export function runWorkQueueConformance(name: string, create: () => Promise<WorkQueueSubject>): void {
  describe(`${name}: work-queue conformance`, () => {
    let subject: WorkQueueSubject;
    let queue: Storage & WorkQueue;
    const now = new Date('2026-06-01T12:00:00.000Z');
    const at = (ms: number) => new Date(now.getTime() + ms);

    beforeEach(async () => {
      subject = await create();
      queue = subject.storage;
      await queue.init();
      // Made in this order on purpose: a queue that hands them out as made, not by id, shows it.
      await queue.apply({
        changes: [],
        connections: ['zeta', 'alpha', 'mid'].map((id) => connectionState(id)),
      });
    });

    afterEach(async () => {
      await queue.close();
      await subject.cleanup?.();
    });

    it('claims the earliest due first, then by id, up to the limit (a fraction rounds up)', async () => {
      expect(await queue.claimDue('w1', { limit: 2, leaseMs: MINUTE, now })).toEqual(['alpha', 'mid']);
      expect(await queue.claimDue('w2', { limit: 0.5, leaseMs: MINUTE, now })).toEqual(['zeta']);
      expect(await queue.claimDue('w3', { limit: 5, leaseMs: MINUTE, now })).toEqual([]);
      // Released with a time each, they come back in that order once it has passed.
      await queue.releaseLease('alpha', 'w1', at(2 * MINUTE));
      await queue.releaseLease('mid', 'w1', at(MINUTE));
      await queue.releaseLease('zeta', 'w2', at(MINUTE));
      expect(await queue.claimDue('w4', { limit: 0, leaseMs: MINUTE, now: at(3 * MINUTE) })).toEqual([]);
      expect(await queue.claimDue('w4', { limit: 10, leaseMs: MINUTE, now: at(3 * MINUTE) })).toEqual([
        'mid',
        'zeta',
        'alpha',
      ]);
    });

    it('a revoked lease makes the connection due at that time, whether it was claimed or not', async () => {
      if (!queue.revokeLease) return expect(queue.revokeLease).toBeUndefined();
      expect(await queue.claimDue('w1', { limit: 1, leaseMs: MINUTE, now })).toEqual(['alpha']);
      await queue.revokeLease('alpha', at(MINUTE));
      await queue.revokeLease('mid', at(MINUTE));
      const leases = new Map((await queue.listLeases()).map((lease) => [lease.connectionId, lease]));
      for (const id of ['alpha', 'mid'])
        expect(leases.get(id)).toEqual({
          connectionId: id,
          workerId: null,
          leaseExpiresAt: null,
          nextRunAt: at(MINUTE).toISOString(),
        });
      expect(await queue.renewLease('alpha', 'w1', { leaseMs: MINUTE, now })).toBe(false);
      expect(await queue.claimDue('w2', { limit: 5, leaseMs: 5 * MINUTE, now })).toEqual(['zeta']);
      expect(await queue.claimDue('w2', { limit: 5, leaseMs: MINUTE, now: at(MINUTE) })).toEqual([
        'alpha',
        'mid',
      ]);
    });

    it('refuses a lease of no length, of more than a day or of no number, and a time that is not one, and claims nothing', async () => {
      for (const leaseMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, MAX_LEASE_MS + 1])
        await expect(queue.claimDue('w1', { limit: 1, leaseMs, now })).rejects.toThrow(RangeError);
      await expect(
        queue.claimDue('w1', { limit: 1, leaseMs: MINUTE, now: new Date(Number.NaN) }),
      ).rejects.toThrow(TypeError);
      await expect(queue.claimDue('', { limit: 1, leaseMs: MINUTE, now })).rejects.toThrow(TypeError);
      expect((await queue.listLeases()).map((lease) => lease.workerId)).toEqual([null, null, null]);
      expect(await queue.claimDue('w1', { limit: 1, leaseMs: MAX_LEASE_MS, now })).toEqual(['alpha']);
      await expect(queue.renewLease('alpha', 'w1', { leaseMs: 0, now })).rejects.toThrow(RangeError);
      await expect(queue.releaseLease('alpha', 'w1', new Date(Number.NaN))).rejects.toThrow(TypeError);
      const [alpha] = await queue.listLeases();
      expect(alpha).toMatchObject({
        connectionId: 'alpha',
        workerId: 'w1',
        leaseExpiresAt: at(MAX_LEASE_MS).toISOString(),
      });
    });

    it('answers an id with U+0000, which no store can hold, as one that holds no lease', async () => {
      expect(await queue.claimDue('w1', { limit: 1, leaseMs: MINUTE, now })).toEqual(['alpha']);
      const nul = 'alpha\u0000';
      expect(await queue.renewLease(nul, 'w1', { leaseMs: MINUTE, now })).toBe(false);
      expect(await queue.renewLease('alpha', 'w1\u0000', { leaseMs: MINUTE, now })).toBe(false);
      await queue.releaseLease(nul, 'w1', at(MINUTE));
      await queue.releaseLease('alpha', 'w1\u0000', at(MINUTE));
      await queue.revokeLease?.(nul, now);
      await expect(
        queue.apply({ changes: [], fence: { connectionId: nul, workerId: 'w1', at: now.toISOString() } }),
      ).rejects.toThrow(LeaseLostError);
      // The lease that is held is untouched.
      const [alpha] = await queue.listLeases();
      expect(alpha).toMatchObject({ connectionId: 'alpha', workerId: 'w1' });
    });
  });
}
