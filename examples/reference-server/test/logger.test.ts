/** The server's log on stderr: one JSON object a line, access lines written together. */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { consoleLogger, flushLogs } from '../src/logger.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
