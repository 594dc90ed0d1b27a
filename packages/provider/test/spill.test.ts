/**
 * The spill on its own: what it does when it is used the wrong way round. A history waiting in memory
 * lets go of each week as it is handed out, so a second pass must fail rather than find weeks empty
 * (the engine would read every row as gone); and a spill disposed while its file is being made must
 * leave no directory behind.
 */
import { readdirSync } from 'node:fs';
import { useTempDirs } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { TransactionSpill } from '../src/spill.js';
import type { Transaction } from '../src/wire/schemas.js';

const tempDir = useTempDirs('spill-unit');

/** Rows as the spill keeps them: a date and the text of a JSON value (decoded back as-is here). */
function rowsOf(count: number) {
  const dates: string[] = [];
  const texts: string[] = [];
  for (let n = 0; n < count; n++) {
    const date = `2026-03-${String(1 + (n % 28)).padStart(2, '0')}`;
    dates.push(date);
    texts.push(JSON.stringify({ id: `tx_${n}`, date, note: 'x'.repeat(200) }));
  }
  return { dates, texts };
}

function spill(directory: string, memoryRows: number) {
  const decode = (raw: unknown[]) => raw as Transaction[];
  return new TransactionSpill({ directory, memoryRows, pageRows: 50, decode, decodeDocumented: decode });
}

async function allRows(history: TransactionSpill) {
  const rows: Transaction[] = [];
  for await (const page of history.pages({ from: null, to: '2026-03-31' })) rows.push(...page.rows);
  return rows;
}

describe('TransactionSpill', () => {
  it.each([
    ['in memory', 10_000],
    ['on disk', 0],
  ])('hands its rows out once: a second pass, or one after dispose(), fails (%s)', async (_, memoryRows) => {
    const directory = tempDir();
    const history = spill(directory, memoryRows);
    const { dates, texts } = rowsOf(2_000);
    await history.add(dates, texts, true);
    expect(await allRows(history)).toHaveLength(2_000);
    await expect(allRows(history)).rejects.toThrow(/paged once/);
    await history.dispose();

    const disposed = spill(directory, memoryRows);
    await disposed.add(dates, texts, true);
    await disposed.dispose();
    await expect(allRows(disposed)).rejects.toThrow(/paged once/);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('disposed while its file is being made, leaves no directory behind', async () => {
    const directory = tempDir();
    const history = spill(directory, 0);
    const { dates, texts } = rowsOf(2_000);
    // Over a write's worth of text: the first add makes the file, and dispose() comes meanwhile.
    const adding = history.add(dates, texts, true).catch((error: unknown) => error);
    await history.dispose();
    await adding;
    expect(readdirSync(directory)).toEqual([]);
  });
});
