import { LeaseLostError, isWorkQueue, type ConnectionState, type WriteBatch } from '@finsync/sync';
import { fixtures } from '@finsync/sync/testing';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { adminPool, countingPool, dropSchema, gatedCommitPool, someoneWaitsOnALock, url } from './helpers.js';

const { accountState, added, connectionState, transaction } = fixtures;

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE = 60_000;

describe.skipIf(!url)(postgresSuiteName('PostgresStorage as a WorkQueue'), () => {
  let schema: string;
  let storage: PostgresStorage;
  const extra: PostgresStorage[] = [];

  /** Another process on the same schema. */
  async function worker(): Promise<PostgresStorage> {
    const other = new PostgresStorage({ connectionString: url, schema, poolConfig: { max: 2 } });
    extra.push(other);
    await other.init();
    return other;
  }

  async function connections(...states: ConnectionState[]): Promise<void> {
    await storage.apply({ changes: [], connections: states });
  }

  beforeEach(async () => {
    schema = freshSchemaName();
    storage = new PostgresStorage({ connectionString: url, schema });
    await storage.init();
  });

  afterEach(async () => {
    await Promise.all([storage, ...extra.splice(0)].map((s) => s.close()));
    await dropSchema(schema);
  });

  it('is recognised as a WorkQueue', () => {
    expect(isWorkQueue(storage)).toBe(true);
  });

  it('hands each due connection to exactly one of several concurrent claimers', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    await connections(...ids.map((id) => connectionState(id)));
    const claimers = await Promise.all(Array.from({ length: 4 }, () => worker()));
    const claimed = await Promise.all(
      claimers.map(async (claimer, n) => {
        const mine: string[] = [];
        for (;;) {
          const got = await claimer.claimDue(`w${n}`, { limit: 3, leaseMs: LEASE, now: T0 });
          if (got.length === 0) return mine;
          mine.push(...got);
        }
      }),
    );
    const all = claimed.flat();
    expect(all).toHaveLength(50);
    expect(new Set(all)).toEqual(new Set(ids));
    // Nobody got nothing: they really ran side by side.
    expect(claimed.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
    const leases = await storage.listLeases();
    for (const [n, mine] of claimed.entries()) {
      for (const id of mine) expect(leases.find((l) => l.connectionId === id)?.workerId).toBe(`w${n}`);
    }
    expect(await storage.claimDue('late', { limit: 50, leaseMs: LEASE, now: T0 })).toEqual([]);
  });

  it('four claimers asking for everything at once split it without overlap', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    await connections(...ids.map((id) => connectionState(id)));
    const claimers = await Promise.all(Array.from({ length: 4 }, () => worker()));
    const claimed = await Promise.all(
      claimers.map((c, n) => c.claimDue(`w${n}`, { limit: 50, leaseMs: LEASE, now: T0 })),
    );
    expect(claimed.flat().sort()).toEqual(ids);
  });

  /** Sets lease and schedule columns directly, as other workers would have left them. */
  async function setLease(id: string, owner: string | null, expiresAt: Date | null, nextRunAt: Date | null) {
    await adminPool().query(
      `UPDATE "${schema}".connections SET lease_owner = $2, lease_expires_at = $3, next_run_at = $4 WHERE id = $1`,
      [id, owner, expiresAt?.toISOString() ?? null, nextRunAt?.toISOString() ?? null],
    );
  }

  it('skips re-auth, future pauses, future next runs and live leases; takes expired leases over', async () => {
    await connections(
      connectionState('active'),
      connectionState('reauth', { status: 'reauth_required', statusReason: '401' }),
      connectionState('paused-future', { status: 'paused', pausedUntil: at(1_000).toISOString() }),
      connectionState('paused-past', { status: 'paused', pausedUntil: at(-1_000).toISOString() }),
      connectionState('paused-open', { status: 'paused', pausedUntil: null }),
      connectionState('scheduled'),
      connectionState('overdue'),
      connectionState('leased'),
      connectionState('expired'),
    );
    await setLease('scheduled', null, null, at(1));
    await setLease('overdue', null, null, at(-1));
    await setLease('leased', 'holder', at(1), at(-LEASE));
    await setLease('expired', 'dead', T0, at(-LEASE));

    const claimed = await storage.claimDue('w1', { limit: 100, leaseMs: LEASE, now: T0 });
    expect(claimed.sort()).toEqual(['active', 'expired', 'overdue', 'paused-open', 'paused-past']);
    const leases = Object.fromEntries((await storage.listLeases()).map((l) => [l.connectionId, l]));
    expect(leases['expired']).toEqual({
      connectionId: 'expired',
      workerId: 'w1',
      leaseExpiresAt: at(LEASE).toISOString(),
      nextRunAt: at(-LEASE).toISOString(),
    });
    expect(leases['leased']).toMatchObject({ workerId: 'holder', leaseExpiresAt: at(1).toISOString() });
    expect(leases['scheduled']).toEqual({
      connectionId: 'scheduled',
      workerId: null,
      leaseExpiresAt: null,
      nextRunAt: at(1).toISOString(),
    });
    // Once their time comes, the scheduled one and the paused one are due too.
    expect((await storage.claimDue('w2', { limit: 100, leaseMs: LEASE, now: at(1_000) })).sort()).toEqual([
      'leased',
      'paused-future',
      'scheduled',
    ]);
    expect(await storage.claimDue('w3', { limit: 100, leaseMs: LEASE, now: at(10 * LEASE) })).not.toContain(
      'reauth',
    );
  });

  it('claims never-run connections first, then the most overdue, never more than the limit', async () => {
    await connections(...['a', 'b', 'c', 'new'].map((id) => connectionState(id)));
    await setLease('a', null, null, at(-300));
    await setLease('b', null, null, at(-100));
    await setLease('c', null, null, at(-200));
    expect(await storage.claimDue('w', { limit: 2, leaseMs: LEASE, now: T0 })).toEqual(['new', 'a']);
    expect(await storage.claimDue('w', { limit: 0, leaseMs: LEASE, now: T0 })).toEqual([]);
    expect(await storage.claimDue('w', { limit: 5, leaseMs: LEASE, now: T0 })).toEqual(['c', 'b']);
  });

  it('passes over a connection whose row another transaction holds, instead of waiting', async () => {
    await connections(connectionState('busy'), connectionState('free'));
    const client = await adminPool().connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM "${schema}".connections WHERE id = 'busy' FOR UPDATE`);
      expect(await storage.claimDue('w', { limit: 5, leaseMs: LEASE, now: T0 })).toEqual(['free']);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    expect(await storage.claimDue('w', { limit: 5, leaseMs: LEASE, now: T0 })).toEqual(['busy']);
  });

  it('renews only a lease still held and not expired', async () => {
    await connections(connectionState('c1'));
    await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: T0 });
    expect(await storage.renewLease('c1', 'w1', { leaseMs: LEASE, now: at(LEASE / 2) })).toBe(true);
    expect((await storage.listLeases())[0]?.leaseExpiresAt).toBe(at(LEASE / 2 + LEASE).toISOString());
    expect(await storage.renewLease('c1', 'w2', { leaseMs: LEASE, now: at(LEASE) })).toBe(false);
    // Expired: not renewable, even by its owner, because someone may have taken it over already.
    expect(await storage.renewLease('c1', 'w1', { leaseMs: LEASE, now: at(3 * LEASE) })).toBe(false);
    expect(await storage.claimDue('w2', { limit: 1, leaseMs: LEASE, now: at(3 * LEASE) })).toEqual(['c1']);
    expect(await storage.renewLease('c1', 'w1', { leaseMs: LEASE, now: at(3 * LEASE) })).toBe(false);
    expect(await storage.renewLease('c1', 'w2', { leaseMs: LEASE, now: at(3 * LEASE) })).toBe(true);
    expect(await storage.renewLease('missing', 'w2', { leaseMs: LEASE, now: T0 })).toBe(false);
  });

  it('releases only for the owner, recording the next run', async () => {
    await connections(connectionState('c1'));
    await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: T0 });
    await storage.releaseLease('c1', 'w2', at(5));
    expect((await storage.listLeases())[0]).toMatchObject({ workerId: 'w1', nextRunAt: null });
    await storage.releaseLease('c1', 'w1', at(3_600_000));
    expect(await storage.listLeases()).toEqual([
      { connectionId: 'c1', workerId: null, leaseExpiresAt: null, nextRunAt: at(3_600_000).toISOString() },
    ]);
    expect(await storage.claimDue('w3', { limit: 1, leaseMs: LEASE, now: at(3_599_999) })).toEqual([]);
    expect(await storage.claimDue('w3', { limit: 1, leaseMs: LEASE, now: at(3_600_000) })).toEqual(['c1']);
  });

  it('validates its arguments', async () => {
    await expect(storage.claimDue('', { limit: 1, leaseMs: LEASE, now: T0 })).rejects.toThrow(TypeError);
    await expect(storage.claimDue('w', { limit: 1, leaseMs: 0, now: T0 })).rejects.toThrow(RangeError);
    await expect(storage.claimDue('w', { limit: 1, leaseMs: LEASE, now: new Date(NaN) })).rejects.toThrow(
      TypeError,
    );
    await expect(storage.releaseLease('c1', 'w', new Date('nope'))).rejects.toThrow(TypeError);
    // Sizes past what PostgreSQL's integers and intervals hold: read as "no limit", or refused up front.
    await expect(storage.claimDue('w', { limit: 1e20, leaseMs: LEASE, now: T0 })).resolves.toBeInstanceOf(
      Array,
    );
    await expect(storage.readChanges({ limit: 1e20, after: 1e20 })).resolves.toEqual([]);
    await expect(storage.renewLease('c1', 'w', { leaseMs: 1e16, now: T0 })).rejects.toThrow(
      /at most 86400000/,
    );
  });

  describe('the fence', () => {
    // Without `at`, the fence judges a lease at real time, so these leases are taken at real time.
    const batch = (workerId: string, key: string): WriteBatch => ({
      changes: [added(transaction('c1', 'a1', key))],
      connections: [connectionState('c1', { lastRunAt: '2030-01-01T00:00:00.000Z' })],
      fence: { connectionId: 'c1', workerId },
    });

    async function unchanged(seq: number): Promise<void> {
      expect(await storage.lastSeq()).toBe(seq);
      expect(await storage.countTransactions('c1')).toBe(seq === 0 ? 0 : 1);
      expect((await storage.getConnection('c1'))?.lastRunAt).toBe(
        seq === 0 ? null : '2030-01-01T00:00:00.000Z',
      );
    }

    beforeEach(async () => {
      await connections(connectionState('c1'));
    });

    it('lets the lease holder commit', async () => {
      await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
      await storage.apply(batch('w1', 'id:1'));
      await unchanged(1);
    });

    it('rejects the holder of a revoked lease (new credentials), writing nothing, and the connection is due', async () => {
      const now = new Date();
      await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now });
      await storage.apply(batch('w1', 'id:1'));
      await storage.revokeLease('c1', now);
      expect(await storage.listLeases()).toEqual([
        { connectionId: 'c1', workerId: null, leaseExpiresAt: null, nextRunAt: now.toISOString() },
      ]);
      await expect(storage.apply(batch('w1', 'id:2'))).rejects.toThrow(LeaseLostError);
      await unchanged(1);
      expect(await storage.renewLease('c1', 'w1', { leaseMs: LEASE, now })).toBe(false);
      expect(await storage.claimDue('w2', { limit: 1, leaseMs: LEASE, now })).toEqual(['c1']);
      await storage.revokeLease('missing', now); // no such connection: nothing to do
    });

    it("judges the lease at the time the batch gives (the worker's clock), not the machine's", async () => {
      // A worker whose clock is a year ahead of the machine: its lease, taken and renewed by that
      // clock, holds at that clock's time and not past it.
      const T = new Date(Date.now() + 365 * 86_400_000);
      await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: T });
      const at = (ms: number) => new Date(T.getTime() + ms).toISOString();
      await storage.apply({
        ...batch('w1', 'id:1'),
        fence: { connectionId: 'c1', workerId: 'w1', at: at(500) },
      });
      await unchanged(1);
      const late = { ...batch('w1', 'id:2'), fence: { connectionId: 'c1', workerId: 'w1', at: at(1_500) } };
      await expect(storage.apply(late)).rejects.toThrow(LeaseLostError);
      await unchanged(1);
      const unreadable = {
        ...batch('w1', 'id:2'),
        fence: { connectionId: 'c1', workerId: 'w1', at: 'not a time' },
      };
      await expect(storage.apply(unreadable)).rejects.toThrow(/fence.at must be an ISO timestamp/);
      await unchanged(1);
    });

    it('rejects a worker whose lease expired, writing nothing', async () => {
      await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: new Date(Date.now() - 5_000) });
      const error = await storage.apply(batch('w1', 'id:1')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseLostError);
      expect(error).toMatchObject({ connectionId: 'c1', workerId: 'w1' });
      await unchanged(0);
    });

    it('removes a connection whole while its worker is committing a batch', async () => {
      const gated = gatedCommitPool();
      const holder = new PostgresStorage({ pool: gated.pool, schema });
      try {
        await holder.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
        const applying = holder.apply(batch('w1', 'id:1'));
        await gated.reached;
        const removing = (await worker()).removeConnection('c1');
        await someoneWaitsOnALock(schema);
        gated.open();
        await applying;
        await removing;
        expect(await storage.getConnection('c1')).toBeUndefined();
        expect(await storage.countTransactions('c1')).toBe(0);
        expect(await storage.readChanges({ limit: 10, connectionId: 'c1' })).toEqual([]);
      } finally {
        gated.open();
        await holder.close();
        await gated.pool.end();
      }
    });

    it('lets a worker whose clock runs behind the database commit under the lease it holds', async () => {
      // The worker's clock two lease lengths behind the database's: its lease ends, by the
      // database's clock, before it was taken, yet it is the worker's clock that set that end.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 2 * LEASE });
      try {
        await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
        await storage.apply(batch('w1', 'id:1'));
      } finally {
        vi.useRealTimers();
      }
      await unchanged(1);
    });

    it('rejects a worker whose lease was taken over, and lets the new holder commit', async () => {
      await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: new Date(Date.now() - 5_000) });
      const other = await worker();
      expect(await other.claimDue('w2', { limit: 1, leaseMs: LEASE, now: new Date() })).toEqual(['c1']);
      await expect(storage.apply(batch('w1', 'id:1'))).rejects.toBeInstanceOf(LeaseLostError);
      await unchanged(0);
      await other.apply(batch('w2', 'id:2'));
      await unchanged(1);
    });

    it('rejects after release, without a lease, and for an unknown connection', async () => {
      await expect(storage.apply(batch('w1', 'id:1'))).rejects.toBeInstanceOf(LeaseLostError);
      await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
      await storage.releaseLease('c1', 'w1', new Date());
      await expect(storage.apply(batch('w1', 'id:1'))).rejects.toBeInstanceOf(LeaseLostError);
      await expect(
        storage.apply({ changes: [], fence: { connectionId: 'nope', workerId: 'w1' } }),
      ).rejects.toBeInstanceOf(LeaseLostError);
      await unchanged(0);
    });

    describe('a batch of one table (the account states, or the connection), in one statement', () => {
      const kinds = {
        'account states': (fence?: WriteBatch['fence']): WriteBatch => ({
          changes: [],
          accountStates: [accountState('c1', 'a1', { lastSyncedAt: '2030-01-01T00:00:00.000Z' })],
          ...(fence ? { fence } : {}),
        }),
        connection: (fence?: WriteBatch['fence']): WriteBatch => ({
          changes: [],
          connections: [connectionState('c1', { lastRunAt: '2030-01-01T00:00:00.000Z' })],
          ...(fence ? { fence } : {}),
        }),
      };
      /** What either kind writes, as read back; null where it wrote nothing. */
      const written = async (kind: keyof typeof kinds) =>
        kind === 'connection'
          ? ((await storage.getConnection('c1'))?.lastRunAt ?? null)
          : ((await storage.listAccountStates('c1'))[0]?.lastSyncedAt ?? null);

      for (const kind of Object.keys(kinds) as Array<keyof typeof kinds>) {
        const batchOf = (workerId: string) => kinds[kind]({ connectionId: 'c1', workerId });

        it(`${kind}: the lease holder commits it in one statement, and so does a batch without a fence`, async () => {
          const counting = countingPool();
          const counted = new PostgresStorage({ pool: counting.pool, schema });
          try {
            await counted.init();
            await counted.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
            counting.reset();
            await counted.apply(batchOf('w1'));
            expect(counting.count()).toBe(1);
            expect(await written(kind)).toBe('2030-01-01T00:00:00.000Z');
            await counted.apply(kinds[kind]());
            expect(counting.count()).toBe(2);
          } finally {
            await counted.close();
            await counting.pool.end();
          }
        });

        it(`${kind}: waits for a takeover in flight on the connection row, then writes nothing`, async () => {
          await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
          const other = await adminPool().connect();
          try {
            // Another claimer has the row and has taken the lease over, not yet committed.
            await other.query('BEGIN');
            await other.query(`UPDATE "${schema}".connections SET lease_owner = 'w2' WHERE id = 'c1'`);
            const applying = storage.apply(batchOf('w1')).then(
              () => 'committed',
              (error: unknown) => error,
            );
            await someoneWaitsOnALock(schema, applying);
            await other.query('COMMIT');
            expect(await applying).toBeInstanceOf(LeaseLostError);
            expect(await written(kind)).toBeNull();
          } finally {
            await other.query('ROLLBACK').catch(() => undefined);
            other.release();
          }
        });

        it(`${kind}: an expired, released, taken-over or unknown lease writes nothing; the new holder commits`, async () => {
          await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: new Date(Date.now() - 5_000) });
          const lost = await storage.apply(batchOf('w1')).catch((e: unknown) => e);
          expect(lost).toBeInstanceOf(LeaseLostError);
          expect(lost).toMatchObject({ connectionId: 'c1', workerId: 'w1' });
          const other = await worker();
          expect(await other.claimDue('w2', { limit: 1, leaseMs: LEASE, now: new Date() })).toEqual(['c1']);
          await expect(storage.apply(batchOf('w1'))).rejects.toBeInstanceOf(LeaseLostError);
          await other.releaseLease('c1', 'w2', new Date());
          await expect(other.apply(batchOf('w2'))).rejects.toBeInstanceOf(LeaseLostError);
          await expect(
            storage.apply(kinds[kind]({ connectionId: 'nope', workerId: 'w1' })),
          ).rejects.toBeInstanceOf(LeaseLostError);
          await expect(
            storage.apply(kinds[kind]({ connectionId: 'c1\u0000', workerId: 'w1' })),
          ).rejects.toBeInstanceOf(LeaseLostError);
          expect(await written(kind)).toBeNull();
          expect(await other.claimDue('w2', { limit: 1, leaseMs: LEASE, now: new Date() })).toEqual(['c1']);
          await other.apply(batchOf('w2'));
          expect(await written(kind)).toBe('2030-01-01T00:00:00.000Z');
        });

        it(`${kind}: judged at the batch's time, and never brings back a connection removed meanwhile`, async () => {
          const T = new Date(Date.now() + 365 * 86_400_000);
          await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: T });
          const late = {
            connectionId: 'c1',
            workerId: 'w1',
            at: new Date(T.getTime() + 1_500).toISOString(),
          };
          await expect(storage.apply(kinds[kind](late))).rejects.toBeInstanceOf(LeaseLostError);
          expect(await written(kind)).toBeNull();
          await storage.removeConnection('c1');
          const early = { ...late, at: new Date(T.getTime() + 500).toISOString() };
          await expect(storage.apply(kinds[kind](early))).rejects.toBeInstanceOf(LeaseLostError);
          expect(await storage.getConnection('c1')).toBeUndefined();
          expect(await storage.listAccountStates('c1')).toEqual([]);
        });
      }
    });

    it('never commits under a lease taken over while the batch was in flight', async () => {
      await storage.claimDue('w1', { limit: 1, leaseMs: LEASE, now: new Date() });
      const other = await worker();
      const big = Array.from({ length: 3_000 }, (_, i) => added(transaction('c1', 'a1', `id:${i}`)));
      // A claimer whose clock is far ahead thinks the lease expired and races the batch. If it
      // claims before the batch locks the row, the batch is refused whole; while the batch holds
      // the row it is skipped; after the commit it may take the lease, but then the batch was
      // already written under a valid lease.
      const [outcome, claimed] = await Promise.all([
        storage.apply({ ...batch('w1', 'id:x'), changes: big }).then(
          () => 'committed',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(resolve, 2)).then(() =>
          other.claimDue('w2', { limit: 1, leaseMs: LEASE, now: new Date(Date.now() + 10 * LEASE) }),
        ),
      ]);
      if (outcome === 'committed') {
        expect(await storage.countTransactions('c1')).toBe(3_000);
      } else {
        expect(outcome).toBeInstanceOf(LeaseLostError);
        expect(claimed).toEqual(['c1']);
        expect(await storage.countTransactions('c1')).toBe(0);
        expect(await storage.lastSeq()).toBe(0);
      }
    });
  });
});
