/** `finsync sync`: one run of one connection, with progress on stderr and a summary on stdout. */
import { SyncEngine, type ConnectionReport } from '@finsync/sync';
import { ExitCode, exitCodeForReport, type ExitCodeValue } from '../exit-codes.js';
import { createLogger, note } from '../io.js';
import {
  DEFAULT_CONNECTION,
  SANDBOX_CONNECTION,
  describeDatabase,
  openStorage,
  resolveDatabase,
  resolveProvider,
  type DatabaseFlags,
  type KeySource,
  type ProviderFlags,
  type ProviderSetup,
} from '../options.js';
import { SyncProgressView, progressMode } from '../progress.js';
import { formatTime, reportJson, syncSummary } from '../summary.js';

export interface SyncFlags extends DatabaseFlags, ProviderFlags {
  connection?: string;
  progress: boolean;
  json?: boolean;
  verbose?: boolean;
  startDate?: string;
}

export function connectionIdFor(flags: { connection?: string; sandbox?: boolean }): string {
  return flags.connection ?? (flags.sandbox ? SANDBOX_CONNECTION : DEFAULT_CONNECTION);
}

/**
 * Registers the connection with this run's key. A connection that a refused key left waiting for
 * re-auth is given the key again: the CLI cannot tell a new key from the old one (a stored key may
 * have been replaced by `finsync key set` since), and running `finsync sync` is how a person asks
 * to try. That costs one request a refused key answers at once. A rate-limit pause, on the other
 * hand, is respected.
 */
export async function registerConnection(
  engine: SyncEngine,
  connectionId: string,
  provider: ProviderSetup,
): Promise<void> {
  const credentials = { apiKey: provider.apiKey, clientOptions: provider.clientOptions };
  const state = await engine.addConnection({ id: connectionId, ...credentials });
  if (state.status === 'reauth_required') await engine.updateCredentials(connectionId, credentials);
}

function keySetCommand(connectionId: string): string {
  return `finsync key set${connectionId === DEFAULT_CONNECTION ? '' : ` --connection ${connectionId}`}`;
}

/** What to do about a run that did not succeed, for the person reading stderr. */
export function advice(
  code: ExitCodeValue,
  pausedUntil: string | null | undefined,
  keySource?: KeySource,
  connectionId = DEFAULT_CONNECTION,
): string | undefined {
  switch (code) {
    case ExitCode.keyRefused:
      return keySource === 'stored'
        ? `the provider refused the stored key: store a valid one with \`${keySetCommand(connectionId)}\` (or set LUNCHFLOW_API_KEY) and run finsync sync again`
        : 'the provider refused the key: set a valid LUNCHFLOW_API_KEY (or --key-file) and run finsync sync again';
    case ExitCode.rateLimited:
      return pausedUntil
        ? `rate limited: paused until ${formatTime(pausedUntil)}; run finsync sync again after that`
        : 'rate limited: try again later';
    case ExitCode.partial:
      return 'some accounts, or a balance or holdings, failed (see issues); the next sync retries them';
    case ExitCode.failed:
      return "no account's transactions synced (see issues)";
    case ExitCode.interrupted:
      return 'interrupted: what was committed is kept; the next sync carries on from there';
    default:
      return undefined;
  }
}

export async function syncCommand(flags: SyncFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const view = new SyncProgressView(progressMode(flags.progress));
  const logger = createLogger(flags.verbose ?? false, (line) => view.log(line));
  const connectionId = connectionIdFor(flags);
  // Key and provider before the database: a missing key must not leave an empty database behind.
  const provider = await resolveProvider(flags, process.env, logger, { target, connectionId });
  const database = describeDatabase(target);
  try {
    const storage = await openStorage(target, 'write');
    const engine = new SyncEngine({
      storage,
      ...(logger ? { logger } : {}),
      ...(flags.startDate ? { startDate: flags.startDate } : {}),
    });
    try {
      await registerConnection(engine, connectionId, provider);
      note(`syncing connection ${connectionId} from ${provider.description}\ninto ${database}`);
      const controller = new AbortController();
      const onSignal = () => {
        if (controller.signal.aborted) {
          view.stop();
          process.exit(ExitCode.interrupted);
        }
        view.log('interrupted: stopping after the current commit (again to quit at once)');
        controller.abort(new Error('interrupted'));
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const detach = view.attach(engine);
      let report: ConnectionReport;
      try {
        report = await engine.sync(connectionId, { signal: controller.signal });
      } finally {
        detach();
        view.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      const code = controller.signal.aborted ? ExitCode.interrupted : exitCodeForReport(report);
      const mirror = await storage.listAccounts(connectionId);
      if (flags.json)
        process.stdout.write(`${JSON.stringify(reportJson(report, code, database), null, 2)}\n`);
      else process.stdout.write(`${syncSummary(report, mirror, database)}\n`);
      const hint = advice(
        code,
        (await engine.getConnection(connectionId))?.pausedUntil,
        provider.keySource,
        connectionId,
      );
      if (hint) note(`finsync: ${hint} (exit ${code})`);
      return code;
    } finally {
      await engine.stop({ abort: true });
      await storage.close();
    }
  } finally {
    await provider.close();
  }
}
