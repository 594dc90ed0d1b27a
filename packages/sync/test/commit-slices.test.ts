import { describe, expect, it } from 'vitest';
import { commitSlices } from '../src/engine/commit-slices.js';
import { diffWindow } from '../src/engine/diff.js';
import type { MirrorTransaction, SupersededTransaction } from '../src/index.js';

const base = { connectionId: 'c1', accountId: 'a', currency: 'EUR', merchant: 'M', description: 'd' };
const row = (id: string, amount: string, date: string, isPending = false) =>
  ({ ...base, key: `id:${id}`, providerId: id, amount, date, isPending }) as unknown as MirrorTransaction;
const posted = row('P', '-5', '2026-06-20');
const hold = row('H', '-5', '2026-06-19', true);
const fresh = row('Q', '-7', '2026-06-21');
const other = row('R', '-9', '2026-06-22');
const window = { from: '2026-06-18', to: '2026-06-22' };
const heldBehindPosted = [
  { ...base, key: hold.key, record: hold, replacedBy: posted.key, reason: 'posted' },
] as unknown as SupersededTransaction[];
const show = (slices: { op: string; key: string }[][]) => slices.map((s) => s.map((c) => `${c.op} ${c.key}`));

describe('the commits one window is cut into', () => {
  it('puts a removal that superseded rows stand behind in the last commit, with their release', () => {
    // The bank drops P, behind which hold H is kept; Q is new and R vanished too.
    const diff = diffWindow({
      incoming: [fresh],
      storedInWindow: [posted, other],
      storedPending: [],
      superseded: heldBehindPosted,
      window,
      complete: true,
    });
    expect(diff.released.map((r) => r.key)).toEqual([hold.key]);
    const slices = commitSlices(diff.changes, 1, new Set(heldBehindPosted.map((r) => r.replacedBy)));
    // The release goes with the last commit; so does P's removal, or a crash between them would
    // leave H pointing at a key no read would find vanished again.
    expect(slices.at(-1)!.map((c) => `${c.op} ${c.key}`)).toContain(`removed ${posted.key}`);
    expect(show(slices.slice(0, -1)).flat()).not.toContain(`removed ${posted.key}`);
    // A re-read after a crash before the last commit still finds P vanished and releases H.
    const earlier = slices.slice(0, -1).flat();
    const stillStored = [posted, other].filter(
      (stored) => !earlier.some((c) => c.op === 'removed' && c.key === stored.key),
    );
    const again = diffWindow({
      incoming: [fresh],
      storedInWindow: [...stillStored, ...(earlier.some((c) => c.key === fresh.key) ? [fresh] : [])],
      storedPending: [],
      superseded: heldBehindPosted,
      window,
      complete: true,
    });
    expect(again.released.map((r) => r.key)).toEqual([hold.key]);
  });

  it('cuts plain changes into slices of the batch size, keeps the diff order, and is never empty', () => {
    const plain = ['A', 'B', 'C'].map((id) => ({ op: 'added', key: `id:${id}` }));
    expect(show(commitSlices(plain as never, 2))).toEqual([['added id:A', 'added id:B'], ['added id:C']]);
    expect(commitSlices([], 2)).toEqual([[]]);
    const linked = [
      { op: 'added', key: 'id:N', replaces: 'id:O' },
      { op: 'removed', key: 'id:X' },
      { op: 'removed', key: 'id:O', replacedBy: 'id:N' },
    ];
    expect(show(commitSlices(linked as never, 1))).toEqual([
      ['removed id:X'],
      ['added id:N', 'removed id:O'],
    ]);
  });
});
