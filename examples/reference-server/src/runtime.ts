/**
 * The server's runtime: everything behind the HTTP surface. The database (SQLite or PostgreSQL), the
 * sync engine with one connection per user, the sandbox provider when no real one is configured, the
 * users' provider keys (provider-keys.ts), and the feed applier that keeps the app's tables in step
 * with the engine's mirror after every run.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderLogger } from '@finsync/provider';
import {
  SandboxProvider,
  startSandboxServer,
  type SandboxOptions,
  type SandboxServer,
} from '@finsync/provider/sandbox';
import { SyncEngine, type ConnectionReport } from '@finsync/sync';
import { loadMasterKey } from './crypto.js';
import { FeedApplier } from './feed.js';
import { ApiProblem } from './problem.js';
import { ProviderKeys } from './provider-keys.js';
import { FeedResults } from './feed-results.js';
import { SyncRuns, balanceCheck, staleBalancesOf, type RunningSync, type UserSyncSummary } from './runs.js';
import { AccountSuccessors } from './successors.js';
import { openStores, type DatabaseConfig } from './store/open.js';
import type { AppStore } from './store/types.js';

export { SANDBOX, SANDBOX_KEY } from './provider-keys.js';
export type { DatabaseConfig } from './store/open.js';

export interface ReferenceServerOptions {
  /** Where the SQLite file and the generated master key live. */
  dataDir: string;
  /** Default `{ kind: 'sqlite' }`: `<dataDir>/finsync.db`. */
  database?: DatabaseConfig;
  /**
   * Run the engine's own scheduler (default true). It does not coordinate across processes: with
   * several instances on one database, turn it on in one of them (or sync with `SyncWorker`).
   */
  scheduler?: boolean;
  /** 32 bytes (hex or base64); default: `<dataDir>/master.key`, generated on first start. */
  masterKey?: string;
  /** Run the sandbox provider (default true); options for it. */
  sandbox?: boolean | SandboxOptions;
  /** Scheduled refresh interval; default 6 h. */
  syncIntervalMs?: number;
  /** Provider base URLs a user may choose besides the default (and `sandbox`). */
  allowedProviderBaseUrls?: string[];
  logger?: ProviderLogger;
}

/** How often a running server looks for provider keys stored by the command line for waiting users. */
const KEY_WATCH_MS = 60_000;

let todayCache = { minute: Number.NaN, day: '' };

/**
 * The local calendar day. Every PATCH asks for it, and the time-zone lookup is most of its cost, so
 * the answer is kept for the rest of the minute: days and time-zone changes begin on a minute.
 */
function localToday(): string {
  const ms = Date.now();
  const minute = Math.floor(ms / 60_000);
  if (minute !== todayCache.minute) {
    const now = new Date(ms);
    const day = new Date(ms - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
    todayCache = { minute, day };
  }
  return todayCache.day;
}

/** The data directory, 0700, or an error naming it and its variable (not a bare EEXIST or EACCES). */
function makeDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'it, or a directory above it, is a file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (code ?? String(error));
    throw new Error(`the data directory ${dataDir} (FINSYNC_DATA_DIR) cannot be made: ${why}`);
  }
}

export class ServerRuntime {
  /** The app's own tables. */
  readonly store: AppStore;
  /** Where the data lives, for logs (never credentials). */
  readonly databaseDescription: string;
  readonly engine: SyncEngine;
  readonly logger: ProviderLogger;
  sandbox: SandboxProvider | undefined;
  #sandboxServer: SandboxServer | undefined;
  readonly #keys: ProviderKeys;
  readonly #applier: FeedApplier;
  readonly #successors: AccountSuccessors;
  readonly #options: ReferenceServerOptions;
  readonly #runs: SyncRuns;
  #started = false;
  #keyWatch: ReturnType<typeof setInterval> | undefined;
  /** The key watch's pass under way, which `close()` waits for. */
  #keyWatchPass: Promise<unknown> | undefined;
  /** The feed applied after each run and at start, and caught up when it could not be. */
  readonly #feeds: FeedResults;
  /** What each user's last finished run is still doing (applying the feed), so `syncUser` can wait for it. */
  readonly #applying = new Map<string, Promise<UserSyncSummary>>();

  constructor(options: ReferenceServerOptions) {
    this.#options = options;
    this.logger = options.logger ?? {};
    const database = options.database ?? { kind: 'sqlite' };
    // 0700: the database files and master.key are for this server's user alone (see README).
    if (database.kind === 'sqlite') makeDataDir(options.dataDir);
    else if (!options.masterKey) {
      this.logger.warn?.(
        'the master key comes from a file in the data directory: every server on this database needs the same key (FINSYNC_MASTER_KEY)',
        { file: join(options.dataDir, 'master.key') },
      );
    }
    const masterKey = loadMasterKey(join(options.dataDir, 'master.key'), options.masterKey);
    const { store, storage, description } = openStores(database, options.dataDir);
    this.store = store;
    this.databaseDescription = description;
    this.engine = new SyncEngine({
      storage,
      intervalMs: options.syncIntervalMs ?? 6 * 3_600_000,
      // Smaller commits than the engine's default: on SQLite each holds the connection requests share.
      batchSize: database.kind === 'sqlite' ? 500 : 2_000,
      // When the sandbox has been moved past the calendar (the demo does), "today" follows it.
      clock: { today: () => this.today() },
      logger: this.logger,
      // A key stored meanwhile by the command line or another instance is used from this run on.
      beforeScheduledRun: (userId) => this.#keys.refresh(userId).then(() => undefined),
    });
    this.#keys = new ProviderKeys({
      masterKey,
      store: this.store,
      engine: this.engine,
      logger: this.logger,
      allowedBaseUrls: options.allowedProviderBaseUrls,
      sandboxUrl: () => this.#sandboxServer?.baseUrl,
    });
    this.#applier = new FeedApplier(this.store, this.engine);
    this.#successors = new AccountSuccessors(this.engine);
    this.#runs = new SyncRuns(this.store, this.engine, this.logger);
    this.#feeds = new FeedResults(this.#applier, this.#runs, this.logger);
    this.engine.on('run:done', ({ report }) => {
      const applying = this.#afterRun(report);
      this.#applying.set(report.connectionId, applying);
      void applying.catch((error: unknown) =>
        this.logger.error?.('applying the change feed failed', {
          userId: report.connectionId,
          error: String(error),
        }),
      );
    });
  }

  /** The calendar's today, or the sandbox's when it has been moved past the calendar. */
  today(): string {
    const calendar = localToday();
    return this.sandbox && this.sandbox.today > calendar ? this.sandbox.today : calendar;
  }

  async start(): Promise<void> {
    const sandboxOption = this.#options.sandbox ?? true;
    if (sandboxOption) {
      this.sandbox = new SandboxProvider({
        today: localToday(),
        ...(typeof sandboxOption === 'object' ? sandboxOption : {}),
      });
      this.#sandboxServer = await startSandboxServer(this.sandbox);
    }
    // What the last runs left in the feed is applied now; a feed that cannot be (the database busy
    // past its timeout) does not stop the start: it is applied again within a minute.
    await this.#keys.registerStored((userId) => this.#feeds.atStart(userId));
    const scheduled = this.#options.scheduler ?? true;
    if (scheduled) this.engine.start();
    // A user waiting for a new key is never scheduled: a key the command line stores for one is looked
    // for every minute (or every interval, when shorter) and synced with at once. A feed left behind
    // is applied again on the same beat, scheduler or not.
    const every = Math.min(KEY_WATCH_MS, this.#options.syncIntervalMs ?? KEY_WATCH_MS);
    this.#keyWatch = setInterval(() => {
      this.#keyWatchPass ??= Promise.all([
        this.#feeds.catchUp(),
        scheduled ? this.#syncWithStoredKeys() : undefined,
      ]).finally(() => (this.#keyWatchPass = undefined));
    }, every);
    this.#keyWatch.unref();
    this.#started = true;
  }

  async #syncWithStoredKeys(): Promise<void> {
    try {
      for (const userId of await this.#keys.pickUpStoredKeys()) {
        this.logger.info?.('a provider key stored elsewhere was picked up', { userId });
        await this.startSync(userId);
      }
    } catch (error) {
      this.logger.error?.('looking for provider keys stored elsewhere failed', { error: String(error) });
    }
  }

  /**
   * Stops the scheduler and lets a sync in flight finish, up to `graceMs` (default 30 s), then
   * aborts what is left between two commits (nothing is half-written either way).
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    clearInterval(this.#keyWatch);
    // A feed still being applied when the grace is over (a first sync of a long history, or the
    // beat's catch-up of one) stops between two batches: the next start applies the rest.
    const stopFeeds = setTimeout(() => this.#applier.stop(), options.graceMs ?? 30_000);
    stopFeeds.unref();
    await this.#keyWatchPass;
    const grace = new Promise<'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), options.graceMs ?? 30_000);
      timer.unref();
    });
    if ((await Promise.race([this.engine.stop(), grace])) === 'timeout')
      await this.engine.stop({ abort: true });
    // Each ended run's feed and result, queued per user, before the stores close under them.
    await this.#feeds.idle();
    await this.#applier.idle();
    clearTimeout(stopFeeds);
    await this.#sandboxServer?.close();
    await this.engine.storage.close();
    await this.store.close();
  }

  /**
   * Checks a user's provider key with the provider, stores it sealed and starts a sync with it (see
   * `ProviderKeys.set` for the answers). Before `start()` (the command line) the key is only stored:
   * `start()` registers every stored key.
   */
  async setProviderKey(
    userId: string,
    apiKey: string,
    baseUrl: string | undefined = undefined,
  ): Promise<RunningSync | undefined> {
    const registered = await this.#keys.set(userId, apiKey, baseUrl, { register: this.#started });
    return registered ? this.startSync(userId) : undefined;
  }

  /** Every run (scheduled or asked for) applies the feed and stores its result (feed-results.ts). */
  #afterRun(report: ConnectionReport): Promise<UserSyncSummary> {
    return this.#feeds.afterRun(report);
  }

  /** Syncs one user now; resolves when the run ended and its feed is applied. */
  async syncUser(userId: string): Promise<UserSyncSummary> {
    if (!(await this.#keys.refresh(userId))) {
      throw new ApiProblem(422, 'validation_failed', 'No provider key is configured for this user', [
        'Set one with PUT /api/v1/provider',
      ]);
    }
    const run = this.#runs.begin(userId);
    await this.engine.sync(userId).catch((error: unknown) => {
      this.#runs.abandon(userId, run);
      throw error;
    });
    // The run's 'run:done' handler applies the feed and stores the summary.
    const done = await this.#applying.get(userId);
    return done ?? (await this.#runs.last(userId))!;
  }

  /**
   * Starts a sync of one user in the background (or joins the one running) and returns its id at
   * once; `GET /api/v1/sync/status` shows its progress and, when it ends, its summary.
   */
  async startSync(userId: string): Promise<RunningSync> {
    if (!(await this.#keys.refresh(userId))) {
      throw new ApiProblem(422, 'validation_failed', 'No provider key is configured for this user', [
        'Set one with PUT /api/v1/provider',
      ]);
    }
    const run = this.#runs.begin(userId);
    void this.engine.sync(userId).catch((error: unknown) => {
      // No report comes: the run must not stay shown as running.
      this.#runs.abandon(userId, run);
      this.logger.error?.('a sync failed', { userId, error: String(error) });
    });
    return run;
  }

  async status(userId: string) {
    const connection = await this.engine.getConnection(userId);
    const states = connection ? await this.engine.storage.listAccountStates(userId) : [];
    const mirrored = connection ? await this.engine.storage.listAccounts(userId) : [];
    const accounts = await this.store.listAccounts(userId);
    // The run before the result: a run leaves `running` only once its result is stored, so one not
    // running here has its result in what is read next. Read the other way round, a run that ended
    // in between was in neither (the run before's result, with nothing running).
    const running = this.#runs.running(userId) ?? null;
    const lastSync = await this.#runs.last(userId);
    const appIdOf = new Map(accounts.map((a) => [a.provider_account_id, a.id]));
    const successors = connection ? await this.#successors.of(userId, mirrored) : [];
    return {
      provider_configured: connection !== undefined,
      connection: connection
        ? {
            status: connection.status,
            status_reason: connection.statusReason,
            paused_until: connection.pausedUntil,
            last_run_at: connection.lastRunAt,
            last_success_at: connection.lastSuccessAt,
            syncing: this.engine.isSyncing(userId),
          }
        : null,
      running,
      last_sync: lastSync,
      accounts: accounts.map((a) => {
        const state = states.find((s) => s.accountId === a.provider_account_id);
        return {
          id: a.id,
          name: a.name,
          account_type: a.account_type,
          currency: a.currency,
          balance: a.balance,
          // A failed balance read keeps the balance before, until a sync reads it again: the rows synced
          // since may have moved on from it.
          balance_stale: staleBalancesOf(lastSync).includes(a.provider_account_id),
          state: a.state,
          last_synced_at: state?.lastSyncedAt ?? null,
          synced_through: state?.watermark ?? null,
          last_error: state?.lastError ?? null,
          // Whether the provider's balance and the synced rows add up, and from which day they do not.
          balance_check: balanceCheck(mirrored.find((m) => m.id === a.provider_account_id)?.reconciliation),
          // The anchor of an account still unchecked is where checking starts, not a day that added up.
          balanced_on:
            state?.ledger?.anchor && state.ledger.anchor.checked !== false ? state.ledger.anchor.on : null,
        };
      }),
      // An account that continues one no longer read (the bank linked again): its history is listed twice.
      account_successors: successors.flatMap((s) => {
        const [accountId, continuesId] = [appIdOf.get(s.successor), appIdOf.get(s.previous)];
        if (accountId === undefined || continuesId === undefined) return [];
        return [
          {
            account_id: accountId,
            continues_account_id: continuesId,
            from: s.from,
            to: s.to,
            rows: s.previousRows,
            shared_rows: s.sharedRows,
          },
        ];
      }),
    };
  }
}
