/**
 * Each user's provider key, from the request that sets it to the engine's client: checked with the
 * provider first, stored sealed under the master key (crypto.ts), opened again whenever it is loaded
 * (its base URL checked against the allow-list each time), and registered with the engine. A stored
 * key that cannot be used sets the user's connection to `reauth_required`, said in the sync status,
 * instead of being skipped in silence.
 */
import {
  apiKeyFault,
  AuthenticationError,
  DEFAULT_BASE_URL,
  PermissionDeniedError,
  ProviderClient,
  type ProviderLogger,
} from '@finsync/provider';
import type { SyncEngine } from '@finsync/sync';
import { judgeStoredKeys, openStoredProviderKey, sealProviderKey, UnusableProviderKey } from './crypto.js';
import { LIMITS } from './http/limits.js';
import { ApiProblem } from './problem.js';
import type { AppStore, ProviderCredential } from './store/types.js';

/** Stored as a user's provider base URL: use the built-in sandbox provider. */
export const SANDBOX = 'sandbox';
export const SANDBOX_KEY = 'sandbox-key';

/** Starts the status reason `#markUnusable` sets, so a key that opens later can lift it. */
const STORED_KEY_PROBLEM = 'stored provider key not usable: ';

export interface ProviderKeysOptions {
  masterKey: Buffer;
  store: AppStore;
  engine: SyncEngine;
  logger: ProviderLogger;
  /** Provider base URLs a user may choose besides the default (and `sandbox`). */
  allowedBaseUrls?: string[] | undefined;
  /** The running sandbox provider's URL, or undefined when it is not running. */
  sandboxUrl: () => string | undefined;
}

/** Why a provider key cannot be used (blank, too long, a control character), or undefined. */
export function providerKeyProblem(key: string): string | undefined {
  if (key === '') return "api_key can't be blank";
  if (key.length > LIMITS.providerKey)
    return `api_key is too long (at most ${LIMITS.providerKey} characters)`;
  // No client can be made from such a key (no HTTP header carries it): stored, it stopped every start.
  const fault = apiKeyFault(key);
  if (fault === 'control character') return 'api_key must not contain a control character (a line break?)';
  if (fault === 'past U+00FF')
    return 'api_key must not contain a character past U+00FF (a curly quote, an emoji?): no HTTP header can carry it';
  return undefined;
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

export class ProviderKeys {
  readonly #options: ProviderKeysOptions;
  /** The `updated_at` of the stored provider key each registered client was made from. */
  readonly #registered = new Map<string, string>();
  /** The `updated_at` of each waiting user's stored key `pickUpStoredKeys` last looked at. */
  readonly #seenWhileWaiting = new Map<string, string>();

  constructor(options: ProviderKeysOptions) {
    this.#options = options;
  }

  /**
   * Registers every stored key that opens, calling `opened` after each. The keys that do not open are
   * judged together (when none opens, a wrong master key is likelier than altered records: start-up
   * is refused, see `judgeStoredKeys`), else each is marked unusable.
   */
  async registerStored(opened: (userId: string) => Promise<void>): Promise<void> {
    const unusable: Array<{ row: ProviderCredential; error: UnusableProviderKey }> = [];
    let count = 0;
    for (const row of await this.#options.store.listProviderCredentials()) {
      let apiKey: string;
      try {
        apiKey = await this.#openCredential(row);
      } catch (error) {
        if (!(error instanceof UnusableProviderKey)) throw error;
        unusable.push({ row, error });
        continue;
      }
      count += 1;
      await this.#register(row, apiKey);
      await opened(row.user_id);
    }
    const verdict = judgeStoredKeys(
      count,
      unusable.map((u) => u.error),
    );
    if (verdict.refuse) throw verdict.refuse;
    for (const { row, error } of unusable) {
      this.#seenWhileWaiting.set(row.user_id, row.updated_at);
      await this.#markUnusable(row.user_id, error, verdict.note(error));
    }
  }

  /**
   * Checks a user's provider key with the provider (`GET /accounts`), then stores it sealed and, with
   * `register`, gives the engine a client for it; returns whether it did. A key the provider refuses
   * is a 422 and the old key stays in use; a provider that cannot be reached is a 503 and nothing
   * changes. Without `register` (the command line, before start) the key is only stored: there is no
   * provider client to check it with yet.
   */
  async set(
    userId: string,
    apiKey: string,
    baseUrl: string | undefined,
    options: { register: boolean },
  ): Promise<boolean> {
    // A user-chosen URL would let anyone make this server call any host: only known ones are allowed.
    const allowed = this.#allowedBaseUrls();
    if (baseUrl !== undefined && !allowed.has(baseUrl)) {
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        `base_url must be one of: ${[...allowed].join(', ')}`,
      ]);
    }
    // Through the API of a server run without the sandbox (FINSYNC_SANDBOX=off): no user may choose it.
    if (options.register && baseUrl === SANDBOX && !this.#options.sandboxUrl())
      throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [
        'base_url sandbox is not served here: this server runs without the sandbox provider',
      ]);
    const key = apiKey.trim();
    // Checked here, where the API and the command line both pass: a key no client can be made from
    // (a line break pasted with it) was stored by the command line, and then no server would start.
    const problem = providerKeyProblem(key);
    if (problem) throw new ApiProblem(422, 'validation_failed', 'Provider key could not be saved', [problem]);
    const storedUrl = baseUrl === DEFAULT_BASE_URL ? null : (baseUrl ?? null);
    const client = options.register ? this.#client(key, storedUrl) : undefined;
    if (client) await checkProviderKey(client);
    const sealed = sealProviderKey(this.#options.masterKey, key, { userId, baseUrl: storedUrl });
    const row = {
      user_id: userId,
      sealed_key: sealed,
      base_url: storedUrl,
      updated_at: new Date().toISOString(),
    };
    await this.#options.store.upsertProviderCredential(row);
    if (!client) return false;
    await this.#register(row, key);
    return true;
  }

  /**
   * Makes this instance's client for a user match the stored key: another server on the same
   * database may have stored a new one since. Returns false when the user has no key.
   */
  async refresh(userId: string): Promise<boolean> {
    const stored = await this.#options.store.getProviderCredential(userId);
    if (!stored) return false;
    if (this.#registered.get(userId) === stored.updated_at) return true;
    let apiKey: string;
    try {
      apiKey = await this.#openCredential(stored);
    } catch (error) {
      if (!(error instanceof UnusableProviderKey)) throw error;
      this.#seenWhileWaiting.set(userId, stored.updated_at);
      await this.#markUnusable(userId, error);
      throw new ApiProblem(422, 'validation_failed', 'The stored provider key cannot be used', [
        `${error.statusReason}; set it again with PUT /api/v1/provider`,
      ]);
    }
    await this.#register(stored, apiKey);
    return true;
  }

  /**
   * Registers the keys stored meanwhile, by the command line or another instance, for users waiting
   * for a new one (`reauth_required`), which makes them active; returns those users. The engine never
   * schedules a waiting user, so without this such a key waited for a restart or a sync asked for by
   * hand. A key already looked at is not opened again (one that does not open would log every time).
   */
  async pickUpStoredKeys(): Promise<string[]> {
    const picked: string[] = [];
    for (const state of await this.#options.engine.storage.listConnections()) {
      if (state.status !== 'reauth_required') {
        this.#seenWhileWaiting.delete(state.id);
        continue;
      }
      const stored = await this.#options.store.getProviderCredential(state.id);
      if (!stored || this.#seenWhileWaiting.get(state.id) === stored.updated_at) continue;
      if (this.#registered.get(state.id) === stored.updated_at) {
        this.#seenWhileWaiting.set(state.id, stored.updated_at);
        continue;
      }
      try {
        await this.refresh(state.id);
      } catch (error) {
        // A key that does not open: `refresh` has logged it and said so in the status. Anything else
        // (the database for a moment) is tried again on the next pass; the other users go on.
        if (!(error instanceof ApiProblem)) {
          this.#options.logger.error?.('a provider key stored elsewhere could not be loaded', {
            userId: state.id,
            error: String(error),
          });
          continue;
        }
      }
      this.#seenWhileWaiting.set(state.id, stored.updated_at);
      // Only a key stored after the refusal makes the user active: the refused key itself, registered
      // here for the first time (another instance had it), leaves the user waiting.
      if ((await this.#options.engine.getConnection(state.id))?.status === 'active') picked.push(state.id);
    }
    return picked;
  }

  /** Where a key may be sent: checked when it is stored and whenever it is loaded (see crypto.ts). */
  #allowedBaseUrls(): Set<string> {
    return new Set([
      DEFAULT_BASE_URL,
      'https://lunchflow.app/api/v1',
      SANDBOX,
      ...(this.#options.allowedBaseUrls ?? []),
    ]);
  }

  /**
   * Opens a stored key (URL on the allow-list, record bound to user and URL). A `v1` record is stored
   * re-sealed as `v2` unless a new key was stored meanwhile (no compare-and-set in the store: re-read,
   * then write), with the same updated_at: other instances keep their client. Throws `UnusableProviderKey`.
   */
  async #openCredential(row: ProviderCredential): Promise<string> {
    const { store, logger, masterKey } = this.#options;
    const { apiKey, resealed } = openStoredProviderKey(masterKey, row, this.#allowedBaseUrls());
    // Stored before keys were checked where the command line stores them: no client can carry it.
    if (providerKeyProblem(apiKey) !== undefined)
      throw new UnusableProviderKey('key', 'the stored provider key has a character no request can carry');
    // A key for the sandbox on a server started without it: this user's alone to set again.
    if (row.base_url === SANDBOX && !this.#options.sandboxUrl())
      throw new UnusableProviderKey(
        'sandbox',
        'the stored provider key is for the sandbox, which this server does not run',
      );
    if (resealed) {
      const current = await store.getProviderCredential(row.user_id);
      if (current?.sealed_key === row.sealed_key && current.base_url === row.base_url) {
        await store.upsertProviderCredential({ ...current, sealed_key: resealed });
        logger.info?.('provider key re-sealed bound to its base URL (v1 to v2)', { userId: row.user_id });
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
    const { engine, logger } = this.#options;
    logger.error?.(`stored provider key of user ${userId} not used: ${error.message}`, {
      userId,
      reason: error.reason,
      ...(note ? { note } : {}),
    });
    this.#registered.delete(userId);
    await engine.removeConnection(userId);
    const state = (await engine.getConnection(userId)) ?? {
      id: userId,
      lastRunAt: null,
      lastSuccessAt: null,
      createdAt: new Date().toISOString(),
    };
    const statusReason = `${STORED_KEY_PROBLEM}${error.statusReason}: set the provider key again (PUT /api/v1/provider)`;
    const next = { ...state, status: 'reauth_required' as const, pausedUntil: null, statusReason };
    await engine.storage.apply({ changes: [], connections: [next] });
  }

  /**
   * Gives the engine a client for a key that opened. A key that replaces the one this instance
   * registered is given with updateCredentials: the connection becomes active, and a run in flight
   * with the old key is stopped first, so that its refusal cannot undo the new key. At start,
   * addConnection leaves a known connection's state alone, so one waiting for a new key set from the
   * command line or another instance would wait for ever: it is made active when the key was stored
   * after the refused run began, or `#markUnusable`'s key opens.
   */
  async #register(row: ProviderCredential, apiKey: string): Promise<void> {
    const { engine } = this.#options;
    const client = this.#client(apiKey, row.base_url);
    const state = await engine.getConnection(row.user_id);
    const previous = this.#registered.get(row.user_id);
    const renewed =
      (previous !== undefined && previous !== row.updated_at) ||
      (state?.status === 'reauth_required' &&
        (state.statusReason?.startsWith(STORED_KEY_PROBLEM) || row.updated_at > (state.lastRunAt ?? '')));
    if (renewed) await engine.updateCredentials(row.user_id, { client });
    else await engine.addConnection({ id: row.user_id, client });
    this.#registered.set(row.user_id, row.updated_at);
  }

  #client(apiKey: string, baseUrl: string | null): ProviderClient {
    const { logger } = this.#options;
    if (baseUrl === SANDBOX) {
      const sandboxUrl = this.#options.sandboxUrl();
      if (!sandboxUrl)
        throw new ApiProblem(
          503,
          'sandbox_unavailable',
          'The sandbox provider is not running on this server',
        );
      return new ProviderClient({ apiKey, baseUrl: sandboxUrl, rateLimit: false, logger });
    }
    return new ProviderClient({ apiKey, baseUrl: baseUrl ?? DEFAULT_BASE_URL, logger });
  }
}
