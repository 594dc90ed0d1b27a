import { describe, expect, it } from 'vitest';
import { makeChange } from '../src/engine/changes.js';
import { independent, pageWrites } from '../src/engine/overlap.js';
import { fixtures } from '../src/testing/index.js';

const { transaction } = fixtures;
const row = (key: string, date: string, isPending = false) =>
  transaction('c1', 'a1', key, { date, isPending });

describe('independent: may the next page read while the page before commits?', () => {
  const added = [row('k1', '2026-01-03'), row('k2', '2026-01-05')];
  const writes = pageWrites(
    added.map((r) => makeChange('transaction', 'added', r)),
    new Map(),
    false,
  );

  it('yes, for a later window with other keys', () => {
    expect(independent(writes, { from: '2026-01-06', to: '2026-02-01' }, [row('k3', '2026-01-07')])).toBe(
      true,
    );
  });

  it('no, when the window holds a date the commit wrote, or is open towards it', () => {
    expect(independent(writes, { from: '2026-01-05', to: '2026-02-01' }, [])).toBe(false);
    expect(independent(writes, { to: '2026-02-01' }, [])).toBe(false);
    expect(independent(writes, { from: '2026-01-01', to: '2026-01-02' }, [])).toBe(true);
  });

  it('no, when an incoming row has a key the commit wrote (one id listed on two dates)', () => {
    expect(independent(writes, { from: '2026-02-01', to: '2026-03-01' }, [row('k2', '2026-02-03')])).toBe(
      false,
    );
  });

  it('no, when the commit touched a pending row, before or after, or superseded rows', () => {
    const window = { from: '2026-02-01', to: '2026-03-01' };
    const hold = row('h1', '2026-01-04', true);
    const posted = row('h1', '2026-01-04', false);
    expect(
      independent(pageWrites([makeChange('transaction', 'added', hold)], new Map(), false), window, []),
    ).toBe(false);
    expect(
      independent(
        pageWrites([makeChange('transaction', 'modified', posted)], new Map([['h1', hold]]), false),
        window,
        [],
      ),
    ).toBe(false);
    expect(independent(pageWrites([], new Map(), true), window, [])).toBe(false);
  });

  it('the date a modified row had counts too, not only its new one', () => {
    const moved = row('k9', '2026-03-10');
    const before = row('k9', '2026-02-10');
    const w = pageWrites([makeChange('transaction', 'modified', moved)], new Map([['k9', before]]), false);
    expect(independent(w, { from: '2026-02-01', to: '2026-02-28' }, [])).toBe(false);
  });
});
