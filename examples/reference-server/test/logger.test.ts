/** The server's log on stderr: one JSON object a line, access lines written together. */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { consoleLogger, flushLogs } from '../src/logger.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.useRealTimers();
});

describe('consoleLogger', () => {
  it('writes the info lines of 10 ms in one write, in order, each a JSON object', async () => {
    const writes: string[] = [];
    const logger = consoleLogger('info', (text) => writes.push(text));
    for (let n = 0; n < 50; n += 1) logger.info?.('request', { n, status: 200 });
    logger.debug?.('not at this level');
    expect(writes).toEqual([]);
    await later(30);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.n)).toEqual([...Array(50).keys()]);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'request', status: 200 });
    expect(Date.parse(lines[0]!.time as string)).not.toBeNaN();
  });

  it('writes a warning or an error at once, after the lines logged before it', () => {
    const writes: string[] = [];
    const logger = consoleLogger('info', (text) => writes.push(text));
    logger.info?.('first');
    logger.error?.('failed', { error: 'boom' });
    expect(writes).toHaveLength(1);
    expect(
      writes[0]!
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).msg),
    ).toEqual(['first', 'failed']);
    logger.warn?.('then a warning');
    expect(writes).toHaveLength(2);
  });

  it('writes at once once 64 KiB of lines wait', () => {
    const writes: string[] = [];
    const logger = consoleLogger('info', (text) => writes.push(text));
    const path = '/api/v1/transactions/'.padEnd(1_000, 'x');
    for (let n = 0; n < 70; n += 1) logger.info?.('request', { n, path });
    expect(writes).toHaveLength(1);
    expect(writes[0]!.length).toBeGreaterThanOrEqual(64 * 1024);
  });

  it('writes waiting lines on flushLogs(), before a line written to stderr directly', () => {
    const writes: string[] = [];
    const logger = consoleLogger('info', (text) => writes.push(text));
    logger.info?.('before');
    flushLogs();
    expect(writes.map((text) => JSON.parse(text).msg)).toEqual(['before']);
  });

  it('writes each line as JSON.stringify writes {time, level, msg, ...fields}, whatever the fields hold', () => {
    const written = (fields: Record<string, unknown>) => {
      const writes: string[] = [];
      consoleLogger('info', (text) => writes.push(text)).warn?.('a "quoted" message', fields);
      const text = writes.join('');
      const time = (JSON.parse(text) as { time: string }).time;
      return {
        text,
        expected: `${JSON.stringify({ time, level: 'warn', msg: 'a "quoted" message', ...fields })}\n`,
      };
    };
    const awkward: Array<Record<string, unknown>> = [
      { request_id: 'r-1', status: 200, duration_ms: 0.1, user_id: undefined },
      {
        path: 'a "quote", a \\ and a\nnewline',
        tab: '\t',
        nul: '\u0000',
        lone: '\ud800',
        pair: '😀',
        sep: '\u2028',
      },
      { nan: Number.NaN, inf: -Infinity, negativeZero: -0, huge: 1e21, tiny: 5e-7, yes: true, none: null },
      { nested: { a: [1, 'b', undefined] }, when: new Date(0), fn: () => 1, sym: Symbol('s') },
      { '0': 'an index first', later: 1 },
      { 'a"b': 'a name to escape' },
      { msg: 'the head replaced', time: 'not a time' },
      { toJSON: () => 'the whole line' },
      {},
      null as unknown as Record<string, unknown>,
    ];
    for (const fields of awkward) {
      const { text, expected } = written(fields);
      expect(text).toBe(expected);
    }
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.jsonValue())),
        (fields) => {
          const { text, expected } = written(fields);
          expect(text).toBe(expected);
        },
      ),
    );
  });

  it('writes the time as toISOString does, on either side of a second', () => {
    vi.useFakeTimers();
    for (const iso of [
      '2026-12-03T10:00:00.000Z',
      '2026-12-03T10:00:00.007Z',
      '2026-12-03T10:00:00.042Z',
      '2026-12-03T10:00:00.999Z',
      '2026-12-03T10:00:01.000Z',
      '+012026-01-01T00:00:00.001Z',
      '1999-12-31T23:59:59.999Z',
    ]) {
      vi.setSystemTime(new Date(iso));
      const writes: string[] = [];
      consoleLogger('info', (text) => writes.push(text)).error?.('at', {});
      expect(JSON.parse(writes[0]!).time).toBe(iso);
    }
  });

  it('keeps waiting lines when the process exits before they are written', () => {
    const logger = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'logger.ts');
    const script = `import { consoleLogger } from ${JSON.stringify(logger)};
      const log = consoleLogger('info');
      log.info('last words', { n: 1 });
      process.exit(0);`;
    const child = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stderr.trim())).toMatchObject({ level: 'info', msg: 'last words', n: 1 });
  });
});
