/**
 * `finsync watch`: the engine's scheduler in the foreground, for a machine without cron (or under
 * systemd, a container, tmux). One line per run on stdout; Ctrl-C stops it after the run in flight,
 * SIGTERM at that run's next commit.
 */
import { SyncEngine } from '@finsync/sync';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { createLogger, note } from '../io.js';
import {
  describeDatabase,
  localToday,
  openStorage,
  resolveDatabase,
  resolveProvider,
  type DatabaseFlags,
  type ProviderFlags,
} from '../options.js';
import { formatTime, runLine } from '../summary.js';
import { keySetAgain } from '../vault.js';
import { advice, connectionIdFor, registerConnection } from './sync.js';

export interface WatchFlags extends DatabaseFlags, ProviderFlags {
  connection?: string;
  /** Minutes between runs. */
  interval: number;
  verbose?: boolean;
  startDate?: string;
}

export async function watchCommand(flags: WatchFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const logger = createLogger(flags.verbose ?? false, note);
  const connectionId = connectionIdFor(flags);
  const provider = await resolveProvider(flags, process.env, logger, { target, connectionId });
  const intervalMs = Math.round(flags.interval * 60_000);
  try {
    const storage = await openStorage(target, 'write');
    const engine = new SyncEngine({
      storage,
      intervalMs,
      concurrency: 1,
      ...(logger ? { logger } : {}),
      ...(flags.startDate ? { startDate: flags.startDate } : {}),
      // With a stored key, the other connections with a stored key are kept fresh too.
      ...(provider.credentials
        ? { credentials: provider.credentials, ...(logger ? { clientOptions: { logger } } : {}) }
        : {}),
    });
    try {
      await registerConnection(engine, connectionId, provider);
      let exitCode: ExitCodeValue = ExitCode.ok;
      let requestStop: () => void = () => undefined;
      const stopped = new Promise<void>((resolve) => (requestStop = resolve));

      engine.on('run:start', () => {
        // A sandbox that runs for days follows the calendar, as the real provider does.
        const sandbox = provider.sandbox;
        if (sandbox && localToday() > sandbox.today) sandbox.setToday(localToday());
      });
      engine.on('run:done', ({ report }) => {
        process.stdout.write(`${runLine(report)}\n`);
        if (report.status !== 'reauth_required') return;
        // Nothing will change the key of this process: waiting for re-auth would wait for ever.
        if (report.connectionId === connectionId) {
          exitCode = ExitCode.keyRefused;
          note(`finsync: ${advice(exitCode, null, provider.keySource, connectionId)} (exit ${exitCode})`);
          requestStop();
        } else if (report.outcome !== 'skipped') {
          // Another connection with a stored key: the rest keep syncing.
          note(
            `finsync: connection ${report.connectionId}: the provider refused its stored key; ` +
              `${keySetAgain(report.connectionId)} with a valid one`,
          );
        }
      });

      let signals = 0;
      const onSignal = () => {
        signals += 1;
        if (signals === 1) {
          note('stopping: the run in flight finishes first (again to abort it)');
          requestStop();
        } else abort();
      };
      const abort = () => {
        requestStop();
        void engine.stop({ abort: true });
      };
      // A service manager's stop (systemd, Docker, Kubernetes) kills the process a few seconds to a
      // minute and a half later, whatever it is doing, and a first sync can take longer: the run in
      // flight stops at its next commit at once. What it committed stays; the next start goes on.
      const onTerminate = () => {
        signals = 2; // a Ctrl-C after it has nothing gentler to ask for
        note(
          'stopping (SIGTERM): the run in flight stops at its next commit; the next start goes on from there',
        );
        abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onTerminate);

      const state = await engine.getConnection(connectionId);
      const due = state?.lastRunAt ? Date.parse(state.lastRunAt) + intervalMs : undefined;
      const next =
        state?.status === 'paused' && state.pausedUntil
          ? `paused until ${formatTime(state.pausedUntil)}`
          : due === undefined
            ? 'first run now'
            : due <= Date.now()
              ? 'the last run is older than that: next run now'
              : `next run around ${formatTime(new Date(due).toISOString())}`;
      note(
        `watching connection ${connectionId} from ${provider.description}\n` +
          `into ${describeDatabase(target)}, every ${flags.interval} min (± 10 %); ${next}. Ctrl-C stops.`,
      );
      engine.start();
      // The scheduler's timers do not hold the process open (they are unref'd): this does.
      const keepAlive = setInterval(() => undefined, 1 << 30);
      try {
        await stopped;
        await engine.stop();
      } finally {
        clearInterval(keepAlive);
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onTerminate);
      }
      return exitCode;
    } finally {
      await engine.stop({ abort: true });
      await storage.close();
    }
  } finally {
    await provider.close();
  }
}
