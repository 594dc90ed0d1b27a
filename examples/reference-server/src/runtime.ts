/**
 * Everything behind the HTTP surface: the database (SQLite or PostgreSQL), the sync engine with one
 * connection per user, the sandbox provider when no real one is configured, and the feed applier
 * that keeps the app's tables in step with the engine's mirror.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthenticationError,
  DEFAULT_BASE_URL,
  PermissionDeniedError,
  ProviderClient,
  type ProviderLogger,
} from '@finsync/provider';
import {
  SandboxProvider,
  startSandboxServer,
  type SandboxOptions,
  type SandboxServer,
} from '@finsync/provider/sandbox';
import { SyncEngine, type ConnectionReport } from '@finsync/sync';
import {
  judgeStoredKeys,
  loadMasterKey,
  openStoredProviderKey,
  sealProviderKey,
  UnusableProviderKey,
} from './crypto.js';
import { FeedApplier } from './feed.js';
import { openStores, type DatabaseConfig } from './store/open.js';
import type { AppStore, ProviderCredential } from './store/types.js';
import { ApiProblem } from './problem.js';
import { SyncRuns, balanceCheck, type RunningSync, type UserSyncSummary } from './runs.js';

/** Stored as a user's provider base URL: use the built-in sandbox provider. */
export const SANDBOX = 'sandbox';
export const SANDBOX_KEY = 'sandbox-key';

export type { DatabaseConfig } from './store/open.js';

/** Starts the status reason `#markUnusable` sets, so a key that opens later can lift it. */
const STORED_KEY_PROBLEM = 'stored provider key not usable: ';

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

function localToday(): string {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
}

/** Asks the provider whether it takes a key; answers a refusal 422 and an unreachable provider 503. */
async function checkProviderKey(client: ProviderClient): Promise<void> {
  try {
    await client.listAccounts({ signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    if (error instanceof AuthenticationError || error instanceof PermissionDeniedError)
      throw new ApiProblem(
        422,
        'validation_failed',
        'The provider refused this key; the previous key stays in use',
        [`The provider answered ${error.status}: ${error.message}`],
      );
    throw new ApiProblem(
      503,
      'provider_unavailable',
      'The provider could not be reached to check the key; nothing was changed. Try again',
    );
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
  readonly #masterKey: Buffer;
  readonly #applier: FeedApplier;
  readonly #options: ReferenceServerOptions;
  readonly #runs: SyncRuns;
  /** The `updated_at` of the stored provider key each registered client was made from. */
  readonly #registered = new Map<string, string>();
  #started = false;
  /** What each user's last finished run is still doing (applying the feed), so `syncUser` can wait for it. */
  readonly #applying = new Map<string, Promise<UserSyncSummary>>();

  constructor(options: ReferenceServerOptions) {
    this.#options = options;
    this.logger = options.logger ?? {};
    const database = options.database ?? { kind: 'sqlite' };
    // 0700: the database files and master.key are for this server's user alone (see README).
    if (database.kind === 'sqlite') mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    else if (!options.masterKey) {
      this.logger.warn?.(
        'the master key comes from a file in the data directory: every server on this database needs the same key (FINSYNC_MASTER_KEY)',
        { file: join(options.dataDir, 'master.key') },
      );
    }
    this.#masterKey = loadMasterKey(join(options.dataDir, 'master.key'), options.masterKey);
    const { store, storage, description } = openStores(database, options.dataDir);
    this.store = store;
    this.databaseDescription = description;
    const sandboxToday = () =>
      this.sandbox && this.sandbox.today > localToday() ? this.sandbox.today : localToday();
    this.engine = new SyncEngine({
      storage,
      intervalMs: options.syncIntervalMs ?? 6 * 3_600_000,
      // Smaller commits than the engine's default: on SQLite each holds the connection requests share.
      batchSize: database.kind === 'sqlite' ? 500 : 2_000,
      // When the sandbox has been moved past the calendar (the demo does), "today" follows it.
      clock: { today: sandboxToday },
      logger: this.logger,
    });
    this.#applier = new FeedApplier(this.store, this.engine);
    this.#runs = new SyncRuns(this.store, this.engine, this.logger);
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

  today(): string {
    return this.sandbox && this.sandbox.today > localToday() ? this.sandbox.today : localToday();
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
    const unusable: Array<{ row: ProviderCredential; error: UnusableProviderKey }> = [];
    let opened = 0;
    for (const row of await this.store.listProviderCredentials()) {
      let apiKey: string;
      try {
        apiKey = await this.#openCredential(row);
      } catch (error) {
        if (!(error instanceof UnusableProviderKey)) throw error;
        unusable.push({ row, error });
        continue;
      }
      opened += 1;
      await this.#register(row, apiKey);
      await this.#applier.apply(row.user_id);
    }
    const verdict = judgeStoredKeys(
      opened,
      unusable.map((u) => u.error),
    );
    if (verdict.refuse) throw verdict.refuse;
    for (const { row, error } of unusable) await this.#markUnusable(row.user_id, error, verdict.note(error));
    if (this.#options.scheduler ?? true) this.engine.start();
    this.#started = true;
  }

  /**
   * Stops the scheduler and lets a sync in flight finish, up to `graceMs` (default 30 s), then
   * aborts what is left between two commits (nothing is half-written either way).
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    const grace = new Promise<'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), options.graceMs ?? 30_000);
      timer.unref();
    });
    if ((await Promise.race([this.engine.stop(), grace])) === 'timeout')
      await this.engine.stop({ abort: true });
    await this.#applier.idle();
    await this.#sandboxServer?.close();
    await this.engine.storage.close();
    await this.store.close();
  }

  /** Where a key may be sent: checked when it is stored and whenever it is loaded (see crypto.ts). */
  #allowedBaseUrls(): Set<string> {
    return new Set([
      DEFAULT_BASE_URL,
      'https://lunchflow.app/api/v1',
      SANDBOX,
      ...(this.#options.allowedProviderBaseUrls ?? []),
    ]);
  }

  /**
   * Opens a stored key (URL on the allow-list, record bound to user and URL). A `v1` record is stored
   * re-sealed as `v2` unless a new key was stored meanwhile (no compare-and-set in the store: re-read,
   * then write), with the same updated_at: other instances keep their client. Throws `UnusableProviderKey`.
   */
  async #openCredential(row: ProviderCredential): Promise<string> {
    const { apiKey, resealed } = openStoredProviderKey(this.#masterKey, row, this.#allowedBaseUrls());
    if (resealed) {
      const current = await this.store.getProviderCredential(row.user_id);
      if (current?.sealed_key === row.sealed_key && current.base_url === row.base_url) {
        await this.store.upsertProviderCredential({ ...current, sealed_key: resealed });
        this.logger.info?.('provider key re-sealed bound to its base URL (v1 to v2)', {
          userId: row.user_id,
        });
      }
    }
    return apiKey;
  }

  /**
   * A stored key that cannot be used: one log line (never the key), and the connection is set to
   * `reauth_required` — shown by `GET /api/v1/sync/status`, skipped by the scheduler — until the user
   * sets the key again.
   */
  async #markUnusable(userId: string, error: UnusableProviderKey, note?: string): Promise<void> {
    this.logger.error?.(`stored provider key of user ${userId} not used: ${error.message}`, {
      userId,
      reason: error.reason,
      ...(note ? { note } : {}),
    });
    this.#registered.delete(userId);
    await this.engine.removeConnection(userId);
    const state = (await this.engine.getConnection(userId)) ?? {
      id: userId,
      lastRunAt: null,
      lastSuccessAt: null,
      createdAt: new Date().toISOString(),
    };
    const statusReason = `${STORED_KEY_PROBLEM}${error.statusReason}: set the provider key again (PUT /api/v1/provider)`;
    const next = { ...state, status: 'reauth_required' as const, pausedUntil: null, statusReason };
    await this.engine.storage.apply({ changes: [], connections: [next] });
  }

  /**
   * Gives the engine a client for a key that opened. addConnection leaves a known connection's state
   * alone, so one waiting for a new key set from the command line or another instance would wait for
   * ever: it is made active when the key was stored after the refusal, or `#markUnusable`'s key opens.
   */
  async #register(row: ProviderCredential, apiKey: string): Promise<void> {
    const client = this.#client(apiKey, row.base_url);
    const state = await this.engine.getConnection(row.user_id);
    const renewed =
      state?.status === 'reauth_required' &&
      (state.statusReason?.startsWith(STORED_KEY_PROBLEM) || row.updated_at > (state.lastRunAt ?? ''));
    if (renewed) await this.engine.updateCredentials(row.user_id, { client });
    else await this.engine.addConnection({ id: row.user_id, client });
    this.#registered.set(row.user_id, row.updated_at);
  }

  #client(apiKey: string, baseUrl: string | null): ProviderClient {
    if (baseUrl === SANDBOX) {
      if (!this.#sandboxServer)
        throw new ApiProblem(
          503,
          'sandbox_unavailable',
          'The sandbox provider is not running on this server',
        );
      return new ProviderClient({
        apiKey,
        baseUrl: this.#sandboxServer.baseUrl,
        rateLimit: false,
        logger: this.logger,
      });
    }
    return new ProviderClient({ apiKey, baseUrl: baseUrl ?? DEFAULT_BASE_URL, logger: this.logger });
  }

  /**
   * Checks a user's provider key with the provider (`GET /accounts`), then stores it encrypted and
   * starts a sync with it. A key the provider refuses is a 422 and the old key stays in use; a
   * provider that cannot be reached is a 503 and nothing changes. Before `start()` (the command
   * line) the key is only stored: there is no provider client to check it with yet.
   */
  async setProviderKey(
    userId: string,
    apiKey: string,
    baseUrl: string | undefined = undefined,
  ): Promise<RunningSync | undefined> {
    // A user-chosen URL would let anyone make this server call any host: only known ones are allowed.
    const allowed = this.#allowedBaseUrls();
    if (baseUrl !== undefined && !allowed.has(baseUrl)) {
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        `base_url must be one of: ${[...allowed].join(', ')}`,
      ]);
    }
    const key = apiKey.trim();
    const storedUrl = baseUrl === DEFAULT_BASE_URL ? null : (baseUrl ?? null);
    const client = this.#started ? this.#client(key, storedUrl) : undefined;
    if (client) await checkProviderKey(client);
    const sealed = sealProviderKey(this.#masterKey, key, { userId, baseUrl: storedUrl });
    const updatedAt = new Date().toISOString();
    await this.store.upsertProviderCredential({
      user_id: userId,
      sealed_key: sealed,
      base_url: storedUrl,
      updated_at: updatedAt,
    });
    // Before start() (the command line), storing is all: start() registers every stored key.
    if (!client) return undefined;
    await this.#register(
      { user_id: userId, sealed_key: sealed, base_url: storedUrl, updated_at: updatedAt },
      key,
    );
    return this.startSync(userId);
  }

  /**
   * Makes this instance's client for a user match the stored key: another server on the same
   * database may have stored a new one since. Returns false when the user has no key.
   */
  async #refreshClient(userId: string): Promise<boolean> {
    const stored = await this.store.getProviderCredential(userId);
    if (!stored) return false;
    if (this.#registered.get(userId) === stored.updated_at) return true;
    let apiKey: string;
    try {
      apiKey = await this.#openCredential(stored);
    } catch (error) {
      if (!(error instanceof UnusableProviderKey)) throw error;
      await this.#markUnusable(userId, error);
      throw new ApiProblem(422, 'validation_failed', 'The stored provider key cannot be used', [
        `${error.statusReason}; set it again with PUT /api/v1/provider`,
      ]);
    }
    await this.#register(stored, apiKey);
    return true;
  }

  /** Every run (scheduled or asked for) applies the feed and stores its summary as the last result. */
  async #afterRun(report: ConnectionReport): Promise<UserSyncSummary> {
    const applied = await this.#applier.apply(report.connectionId);
    return this.#runs.finish(report.connectionId, report, applied);
  }

  /** Syncs one user now; resolves when the run ended and its feed is applied. */
  async syncUser(userId: string): Promise<UserSyncSummary> {
    if (!(await this.#refreshClient(userId))) {
      throw new ApiProblem(422, 'validation_failed', 'No provider key is configured for this user', [
        'Set one with PUT /api/v1/provider',
      ]);
    }
    this.#runs.begin(userId);
    await this.engine.sync(userId);
    // The run's 'run:done' handler applies the feed and stores the summary.
    const done = await this.#applying.get(userId);
    return done ?? (await this.#runs.last(userId))!;
  }

  /**
   * Starts a sync of one user in the background (or joins the one running) and returns its id at
   * once; `GET /api/v1/sync/status` shows its progress and, when it ends, its summary.
   */
  async startSync(userId: string): Promise<RunningSync> {
    if (!(await this.#refreshClient(userId))) {
      throw new ApiProblem(422, 'validation_failed', 'No provider key is configured for this user', [
        'Set one with PUT /api/v1/provider',
      ]);
    }
    const run = this.#runs.begin(userId);
    void this.engine
      .sync(userId)
      .catch((error: unknown) => this.logger.error?.('a sync failed', { userId, error: String(error) }));
    return run;
  }

  async status(userId: string) {
    const connection = await this.engine.getConnection(userId);
    const states = connection ? await this.engine.storage.listAccountStates(userId) : [];
    const mirrored = connection ? await this.engine.storage.listAccounts(userId) : [];
    const accounts = await this.store.listAccounts(userId);
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
      running: this.#runs.running(userId) ?? null,
      last_sync: await this.#runs.last(userId),
      accounts: accounts.map((a) => {
        const state = states.find((s) => s.accountId === a.provider_account_id);
        return {
          id: a.id,
          name: a.name,
          account_type: a.account_type,
          currency: a.currency,
          balance: a.balance,
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
    };
  }
}
