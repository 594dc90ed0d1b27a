/** The connection status machine, row by row as SPEC.md's "Connection status" table writes it. */
import {
  AuthenticationError,
  ConnectionError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
} from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import {
  callsResume,
  mayCall,
  newConnectionState,
  nextConnectionState,
  stopEvent,
} from '../src/engine/connection-status.js';
import { MemoryStorage, type ConnectionState, type ConnectionStatus } from '../src/index.js';
import { connectionState } from '../src/testing/fixtures.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');
const LATER = new Date('2026-06-30T12:00:05.000Z');

const active = connectionState('c1', { lastRunAt: '2026-06-29T12:00:00.000Z' });
const paused = connectionState('c1', {
  status: 'paused',
  pausedUntil: '2026-06-30T11:59:00.000Z',
  statusReason: 'Too Many Requests',
});
const reauth = connectionState('c1', { status: 'reauth_required', statusReason: 'Invalid API key' });
const every: Array<[ConnectionStatus, ConnectionState]> = [
  ['active', active],
  ['paused', paused],
  ['reauth_required', reauth],
];

const rateLimit = (retryAfterMs: number | null) =>
  ({
    type: 'rate-limited',
    at: NOW,
    retryAfterMs,
    defaultPauseMs: 60_000,
    reason: 'Too Many Requests',
  }) as const;

describe('1. a connection seen for the first time', () => {
  it('is active, never run, created now', () => {
    expect(newConnectionState('c1', NOW)).toEqual({
      id: 'c1',
      status: 'active',
      pausedUntil: null,
      statusReason: null,
      lastRunAt: null,
      lastSuccessAt: null,
      createdAt: NOW.toISOString(),
    });
  });
});

describe('2. a run starts', () => {
  it.each(every)('from %s: the status stays, lastRunAt is now', (_, state) => {
    expect(nextConnectionState(state, { type: 'run-started', at: NOW })).toEqual({
      ...state,
      lastRunAt: NOW.toISOString(),
    });
  });
});

describe('3. a run succeeds', () => {
  it.each(every)('from %s: active, pause and reason cleared, lastSuccessAt is its end', (_, state) => {
    expect(nextConnectionState(state, { type: 'run-succeeded', at: LATER })).toEqual({
      ...state,
      status: 'active',
      pausedUntil: null,
      statusReason: null,
      lastSuccessAt: LATER.toISOString(),
    });
  });
});

describe('4–5. a run fails without being stopped (an account failed)', () => {
  it('4. from paused: active, pause and reason cleared, lastSuccessAt kept', () => {
    expect(nextConnectionState(paused, { type: 'run-failed' })).toEqual({
      ...paused,
      status: 'active',
      pausedUntil: null,
      statusReason: null,
    });
  });

  it.each([every[0]!, every[2]!])('5. from %s: unchanged', (_, state) => {
    expect(nextConnectionState(state, { type: 'run-failed' })).toEqual(state);
  });
});

describe('6. the provider refuses the key (401/403)', () => {
  it.each(every)('from %s: reauth_required, no pause, the error as reason', (_, state) => {
    expect(nextConnectionState(state, { type: 'auth-refused', reason: 'Invalid API key' })).toEqual({
      ...state,
      status: 'reauth_required',
      pausedUntil: null,
      statusReason: 'Invalid API key',
    });
  });

  it('both 401 and 403 stop the run as a refused key', () => {
    for (const error of [
      new AuthenticationError('Invalid API key', { status: 401 }),
      new PermissionDeniedError('Forbidden', { status: 403 }),
    ])
      expect(stopEvent(error, NOW, 60_000)).toEqual({ type: 'auth-refused', reason: error.message });
  });
});

describe('7. the provider rate-limits us', () => {
  it.each(every)('from %s: paused until now + the stated wait, the error as reason', (_, state) => {
    expect(nextConnectionState(state, rateLimit(90_000))).toEqual({
      ...state,
      status: 'paused',
      pausedUntil: '2026-06-30T12:01:30.000Z',
      statusReason: 'Too Many Requests',
    });
  });

  it('with no stated wait: paused for defaultRateLimitPauseMs', () => {
    expect(nextConnectionState(active, rateLimit(null)).pausedUntil).toBe('2026-06-30T12:01:00.000Z');
  });

  it.each([4e14, Infinity])(
    'a stated wait of %s ms pauses for a day, not past what a date can hold',
    (wait) => {
      expect(nextConnectionState(active, rateLimit(wait)).pausedUntil).toBe('2026-07-01T12:00:00.000Z');
    },
  );

  it('a rate limit error stops the run with its stated wait, or none', () => {
    const stated = new RateLimitError('Too Many Requests', { status: 429, retryAfterMs: 90_000 });
    expect(stopEvent(stated, NOW, 60_000)).toEqual(rateLimit(90_000));
    const unstated = new RateLimitError('Too Many Requests', { status: 429 });
    expect(stopEvent(unstated, NOW, 60_000)).toEqual(rateLimit(null));
  });
});

describe('8. the run is stopped from our side (abort, engine stopped, lease lost)', () => {
  it.each(every)('from %s: unchanged', (_, state) => {
    expect(nextConnectionState(state, { type: 'run-aborted' })).toEqual(state);
  });

  it('any other stopping error is a stop from our side', () => {
    for (const error of [
      new RequestAbortedError('aborted'),
      new ConnectionError('socket hang up'),
      new Error('engine stopped'),
    ])
      expect(stopEvent(error, NOW, 60_000)).toEqual({ type: 'run-aborted' });
  });
});

describe('9. the user replaces the key', () => {
  it.each(every)('from %s: active, pause and reason cleared, run times kept', (_, state) => {
    expect(nextConnectionState(state, { type: 'credentials-replaced' })).toEqual({
      ...state,
      status: 'active',
      pausedUntil: null,
      statusReason: null,
    });
  });
});

describe('10. time passes pausedUntil', () => {
  it('nothing is written: the connection stays paused, and calls may be made again', () => {
    const until = Date.parse(paused.pausedUntil!);
    expect(callsResume(paused)).toBe(until);
    expect(mayCall(paused, until - 1)).toBe(false);
    expect(mayCall(paused, until)).toBe(true);
  });
});

describe('who may be called', () => {
  it('active: on schedule', () => {
    expect(callsResume(active)).toBe('on-schedule');
    expect(mayCall(active, NOW.getTime())).toBe(true);
  });

  it('paused: not before pausedUntil (a pause without an end holds nothing)', () => {
    const pausedNow = nextConnectionState(active, rateLimit(90_000));
    expect(callsResume(pausedNow)).toBe(Date.parse('2026-06-30T12:01:30.000Z'));
    expect(mayCall(pausedNow, NOW.getTime())).toBe(false);
    expect(mayCall({ ...pausedNow, pausedUntil: null }, NOW.getTime())).toBe(true);
  });

  it('reauth_required: never, until the key is replaced', () => {
    expect(callsResume(reauth)).toBe('on-new-key');
    expect(mayCall(reauth, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(mayCall(nextConnectionState(reauth, { type: 'credentials-replaced' }), NOW.getTime())).toBe(true);
  });
});

describe('the storages agree', () => {
  it('MemoryStorage.claimDue claims exactly the connections that may be called', async () => {
    const states = [
      connectionState('active'),
      connectionState('paused-over', { status: 'paused', pausedUntil: '2026-06-30T11:59:00.000Z' }),
      connectionState('paused-until-now', { status: 'paused', pausedUntil: NOW.toISOString() }),
      connectionState('paused-later', { status: 'paused', pausedUntil: LATER.toISOString() }),
      connectionState('paused-no-end', { status: 'paused', pausedUntil: null }),
      connectionState('reauth', { status: 'reauth_required' }),
    ];
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: states });
    const claimed = await storage.claimDue('w1', { limit: states.length, leaseMs: 60_000, now: NOW });
    const callable = states.filter((state) => mayCall(state, NOW.getTime())).map((state) => state.id);
    expect(claimed.sort()).toEqual(callable.sort());
    expect(callable.sort()).toEqual(['active', 'paused-no-end', 'paused-over', 'paused-until-now']);
  });
});
