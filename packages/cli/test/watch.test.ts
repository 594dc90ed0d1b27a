/** The two long-running commands: `watch` and `feed --follow`, stopped with SIGINT (and `watch` with SIGTERM). */
import { join } from 'node:path';
import type { FeedEntry } from '@finsync/sync';
import Database from 'better-sqlite3';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, waitForOutput } from './helpers.js';

/**
 * Stops reading a feed's output once it has begun: its signal handlers are set before its first line
 * (a signal sent earlier, on a machine slow to start the process, killed it outright). The feed
 * writes without pause until the pipe is full, which the second's wait leaves time for.
 */
async function pauseAfterFirstOutput(feed: ReturnType<typeof startCli>): Promise<void> {
  const ended = await Promise.race([
    new Promise<false>((resolve) => feed.stdout!.once('data', () => resolve(false))),
    feed.done.then(() => true),
  ]);
  // A feed that ended before its first line would leave the test waiting for its timeout.
  if (ended) throw new Error(`the feed ended before writing anything: ${feed.output.stderr}`);
  feed.stdout!.pause();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

describe('watch and feed --follow', () => {
  let dir: string;

  beforeAll(async () => {
    dir = makeTempDir('cli');
  });
  afterAll(() => removeTempDir(dir));

  it('watch runs the scheduler, logs one line per run, and stops cleanly on SIGINT', async () => {
    const watch = startCli(['watch', '--sandbox', '--sandbox-days', '30', '--interval', '60'], { cwd: dir });
    // A connection never synced is due at once.
    await waitForOutput(watch, /sandbox: success/);
    expect(watch.output.stderr).toContain(`into ${join(dir, 'finsync.db')}, every 60 min`);
    watch.kill('SIGINT');
    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toMatch(/^\S+Z sandbox: success \(.+\), 7 accounts, \d+ fetched, \+\d+ ~0 -0$/m);
  });

  it('watch on a database whose last run is older than the interval says the next run is now, not a time past', async () => {
    const database = join(dir, 'finsync.db');
    // The first test's run, made two hours old.
    const db = new Database(database);
    db.prepare('UPDATE connections SET last_run_at = ?').run(new Date(Date.now() - 7_200_000).toISOString());
    db.close();
    const watch = startCli(['watch', '--sandbox', '--sandbox-days', '30', '--interval', '60'], { cwd: dir });
    await waitForOutput(watch, /sandbox: success/);
    watch.kill('SIGINT');
    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('the last run is older than that: next run now');
    expect(result.stderr).not.toContain('next run around');
  });

  it('watch stopped by SIGTERM (a service manager) stops the run in flight at its next commit, not after the whole run', async () => {
    // A century of history: a first sync far longer than the moment before the signal.
    const watch = startCli(
      ['watch', '--sandbox', '--sandbox-days', '36525', '--interval', '60', '--database', 'term.db'],
      { cwd: dir },
    );
    await waitForOutput(watch, /first run now/);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    watch.kill('SIGTERM');
    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopping (SIGTERM): the run in flight stops at its next commit');
    // The run did not finish, and does not count as the last run: the next start runs it again at once.
    expect(result.stdout).not.toMatch(/sandbox: success/);
    const db = new Database(join(dir, 'term.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT last_run_at FROM connections').pluck().get()).toBeNull();
    } finally {
      db.close();
    }
  });

  it('feed without --follow stopped by SIGINT mid-way: whole lines, and exit 130, not 0', async () => {
    // A feed of a few MiB: far more than a pipe holds.
    const synced = await runCli(
      ['sync', '--sandbox', '--sandbox-days', '400', '--database', 'big.db', '--no-progress'],
      {
        cwd: dir,
      },
    );
    expect(synced.code, synced.stderr).toBe(0);
    const feed = startCli(['feed', '--database', 'big.db'], { cwd: dir });
    // Not read for a while: the pipe fills, and the feed waits in the middle of its output.
    await pauseAfterFirstOutput(feed);
    feed.kill('SIGINT');
    feed.stdout!.resume();
    const result = await feed.done;
    expect(result.code, result.stderr).toBe(130);
    for (const line of result.stdout.trimEnd().split('\n'))
      expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('feed --follow into a reader that stopped reading still stops on SIGTERM, with exit 130', async () => {
    const feed = startCli(['feed', '--follow', '--database', 'big.db'], { cwd: dir });
    // Never read until the process has gone: the pipe fills and the feed waits for a reader that is not there.
    await pauseAfterFirstOutput(feed);
    const exited = new Promise<number | null>((resolve) => feed.once('exit', (code) => resolve(code)));
    feed.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
    ]);
    if (code === 'still running') feed.kill('SIGKILL');
    feed.stdout!.resume();
    await feed.done;
    // Cut short (the last line may be half written): 130, not the 0 of a --follow stopped between lines.
    expect(code, feed.output.stderr).toBe(130);
  });

  it('feed --follow stopped while a slow reader has lines queued: the reader gets them whole, exit 0', async () => {
    const feed = startCli(['feed', '--follow', '--database', 'big.db'], { cwd: dir });
    // Not read for a moment: the pipe fills and the feed waits for room in the middle of its output.
    await pauseAfterFirstOutput(feed);
    feed.kill('SIGINT');
    // The reader was slow, not gone: it reads on at once.
    feed.stdout!.resume();
    const result = await feed.done;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('feed --follow prints what is there, keeps polling, and stops on SIGINT', async () => {
    const follow = startCli(['feed', '--follow', '--poll', '0.2', '--after', '3'], { cwd: dir });
    await waitForOutput(follow, /"seq":4,/);
    follow.kill('SIGINT');
    const result = await follow.done;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect((JSON.parse(lines[0]!) as FeedEntry).seq).toBe(4);
    // Every line whole: the stop came between two lines, never inside one.
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
