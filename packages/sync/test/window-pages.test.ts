import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  LoggedSlowCommits,
  server,
  useMsw,
} from './harness.js';

useMsw();

describe('a first sync walked in windows denser than a page', () => {
  it('commits the pages of one window while the next window is on its way, and the mirror is the provider’s', async () => {
    const log: string[] = [];
    const storage = new LoggedSlowCommits(log);
    // 30-day windows of ~90 rows, handed out as pages of one week (21 rows; two would pass 40).
    const h = await createHarness({
      storage,
      sandbox: { historyDays: 120, transactionsPerDay: 3 },
      engine: { startDate: '2026-01-01', windowDays: 30, batchSize: 40 },
      client: { spill: { pageRows: 40 } },
    });
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, async ({ request }) => {
        const from = new URL(request.url).searchParams.get('from');
        log.push(`request ${from}`);
        // The provider takes its time; the sandbox answers after (no answer from this handler).
        await new Promise((resolve) => setTimeout(resolve, 40));
        log.push(`answering ${from}`);
      }),
    );
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);

    const windows = log.filter((line) => line.startsWith('request ')).map((line) => line.slice(8));
    expect(windows.length).toBeGreaterThan(2);
    // While some later window was on its way, pages of the window before it were committed.
    const committedMeanwhile = windows.slice(1).some((from) => {
      const asked = log.indexOf(`request ${from}`);
      const answered = log.indexOf(`answering ${from}`);
      return log.slice(asked, answered).includes('commit 4711 start');
    });
    expect(committedMeanwhile).toBe(true);
    await expectMirrorMatchesProvider(h, { from: '2026-01-01' });
    await expectFeedReplaysToMirror(storage);
  });
});
