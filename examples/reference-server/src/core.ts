/**
 * Everything behind the HTTP surface: the database, the sync engine with one connection per user,
 * the sandbox provider when no real one is configured, and the feed applier that keeps the app's
 * tables in step with the engine's mirror.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BASE_URL, ProviderClient, type ProviderLogger } from '@finsync/provider';
import {
  SandboxProvider,
  startSandboxServer,
  type SandboxOptions,
  type SandboxServer,
} from '@finsync/provider/sandbox';
import { SqliteStorage } from '@finsync/sqlite';
import { SyncEngine, type ConnectionReport } from '@finsync/sync';
import { decryptSecret, encryptSecret, loadMasterKey } from './crypto.js';
import { openDatabase, type Db } from './db.js';
import { FeedApplier } from './feed.js';
import { ApiProblem } from './transactions.js';

/** Stored as a user's provider base URL: use the built-in sandbox provider. */
export const SANDBOX = 'sandbox';
export const SANDBOX_KEY = 'sandbox-key';

export interface ReferenceServerOptions {
  /** Where the SQLite file and the generated master key live. */
  dataDir: string;
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

export interface UserSyncSummary {
  ok: boolean;
  outcome: ConnectionReport['outcome'];
  status: ConnectionReport['status'];
  finished_at: string;
  accounts: Array<{
    account_id: string;
    name: string;
    state: string;
    fetched: number;
    added: number;
    modified: number;
    removed: number;
  }>;
  issues: Array<{ stage: string; account_id: string | null; error: string; message: string }>;
  feed_entries_applied: number;
}

export class ReferenceServerCore {
  readonly db: Db;
  readonly engine: SyncEngine;
  readonly logger: ProviderLogger;
  sandbox: SandboxProvider | undefined;
  #sandboxServer: SandboxServer | undefined;
  readonly #masterKey: Buffer;
  readonly #applier: FeedApplier;
  readonly #options: ReferenceServerOptions;
  readonly #lastReports = new Map<string, UserSyncSummary>();
  #started = false;
  /** The feed application started when a run ended, so `syncUser` can report what it applied. */
  readonly #applying = new Map<string, Promise<number>>();

  constructor(options: ReferenceServerOptions) {
    this.#options = options;
    this.logger = options.logger ?? {};
    mkdirSync(options.dataDir, { recursive: true });
    this.#masterKey = loadMasterKey(join(options.dataDir, 'master.key'), options.masterKey);
    this.db = openDatabase(join(options.dataDir, 'finsync.db'));
    const sandboxToday = () =>
      this.sandbox && this.sandbox.today > localToday() ? this.sandbox.today : localToday();
    this.engine = new SyncEngine({
      storage: new SqliteStorage({ database: this.db }),
      intervalMs: options.syncIntervalMs ?? 6 * 3_600_000,
      // When the sandbox has been moved past the calendar (the demo does), "today" follows it.
      clock: { today: sandboxToday },
      logger: this.logger,
    });
    this.#applier = new FeedApplier(this.db, this.engine);
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
    const credentials = this.db
      .prepare('SELECT user_id, sealed_key, base_url FROM app_provider_credentials')
      .all() as Array<{
      user_id: string;
      sealed_key: string;
      base_url: string | null;
    }>;
    for (const row of credentials) {
      await this.engine.addConnection({
        id: row.user_id,
        client: this.#client(row.user_id, row.sealed_key, row.base_url),
      });
      await this.#applier.apply(row.user_id);
    }
    this.engine.start();
    this.#started = true;
  }

  async close(): Promise<void> {
    await this.engine.stop({ abort: true });
    await this.#sandboxServer?.close();
    this.db.close();
  }

  #client(userId: string, sealedKey: string, baseUrl: string | null): ProviderClient {
    const apiKey = decryptSecret(this.#masterKey, sealedKey, userId);
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

  /** Stores a user's provider key encrypted and (re)starts syncing with it. */
  async setProviderKey(
    userId: string,
    apiKey: string,
    baseUrl: string | undefined = undefined,
  ): Promise<void> {
    // A user-chosen URL would let anyone make this server call any host: only known ones are allowed.
    const allowed = new Set([
      DEFAULT_BASE_URL,
      'https://lunchflow.app/api/v1',
      SANDBOX,
      ...(this.#options.allowedProviderBaseUrls ?? []),
    ]);
    if (baseUrl !== undefined && !allowed.has(baseUrl)) {
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        `base_url must be one of: ${[...allowed].join(', ')}`,
      ]);
    }
    const sealed = encryptSecret(this.#masterKey, apiKey.trim(), userId);
    const storedUrl = baseUrl === DEFAULT_BASE_URL ? null : (baseUrl ?? null);
    const client = this.#started ? this.#client(userId, sealed, storedUrl) : undefined;
    this.db
      .prepare(
        `INSERT INTO app_provider_credentials (user_id, sealed_key, base_url, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET sealed_key = excluded.sealed_key, base_url = excluded.base_url, updated_at = excluded.updated_at`,
      )
      .run(userId, sealed, storedUrl, new Date().toISOString());
    // Before start() (the command line), storing is all: start() registers every stored key.
    if (!client) return;
    if (await this.engine.getConnection(userId)) await this.engine.updateCredentials(userId, { client });
    else await this.engine.addConnection({ id: userId, client });
  }

  async #afterRun(report: ConnectionReport): Promise<number> {
    const applied = await this.#applier.apply(report.connectionId);
    this.#lastReports.set(report.connectionId, this.#summarize(report, applied));
    return applied;
  }

  #summarize(report: ConnectionReport, applied: number): UserSyncSummary {
    return {
      ok: report.ok,
      outcome: report.outcome,
      status: report.status,
      finished_at: report.finishedAt,
      accounts: report.accounts.map((a) => ({
        account_id: a.accountId,
        name: a.name,
        state: a.state,
        fetched: a.fetched,
        added: a.added,
        modified: a.modified,
        removed: a.removed,
      })),
      issues: report.issues.map((i) => ({
        stage: i.stage,
        account_id: i.accountId,
        error: i.error.name,
        message: i.message,
      })),
      feed_entries_applied: applied,
    };
  }

  /** Syncs one user now and applies the feed before answering. */
  async syncUser(userId: string): Promise<UserSyncSummary> {
    if (!(await this.engine.getConnection(userId))) {
      throw new ApiProblem(422, 'validation_failed', 'No provider key is configured for this user', [
        'Set one with PUT /api/v1/provider',
      ]);
    }
    const report = await this.engine.sync(userId);
    const applied =
      (await (this.#applying.get(userId) ?? Promise.resolve(0))) + (await this.#applier.apply(userId));
    const summary = this.#summarize(report, applied);
    this.#lastReports.set(userId, summary);
    return summary;
  }

  async status(userId: string) {
    const connection = await this.engine.getConnection(userId);
    const states = connection ? await this.engine.storage.listAccountStates(userId) : [];
    const accounts = this.db
      .prepare(
        'SELECT id, provider_account_id, name, account_type, currency, balance, state FROM app_accounts WHERE user_id = ? ORDER BY name',
      )
      .all(userId) as Array<{
      id: string;
      provider_account_id: string;
      name: string;
      account_type: string;
      currency: string | null;
      balance: string | null;
      state: string;
    }>;
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
      last_sync: this.#lastReports.get(userId) ?? null,
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
        };
      }),
    };
  }
}
