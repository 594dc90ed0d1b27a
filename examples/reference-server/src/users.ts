import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKey, hashesMatch } from './crypto.js';
import { isRecordId } from './input.js';
import { thenApply, type Awaitable } from './store/steps.js';
import type { ApiKeyInfo, AppStore, Scope, User } from './store/types.js';

export type { Scope, User } from './store/types.js';

export interface Principal {
  userId: string;
  keyId: string;
  scope: Scope;
}

/** The categories a new user starts with (the service has a similar default set). */
const DEFAULT_CATEGORIES: Array<[name: string, color: string, icon: string]> = [
  ['Groceries', '#407706', 'shopping-basket'],
  ['Restaurants', '#e99537', 'utensils'],
  ['Transportation', '#0ea5e9', 'bus'],
  ['Shopping', '#db2777', 'shopping-cart'],
  ['Bills & Utilities', '#6172F3', 'receipt'],
  ['Entertainment', '#a855f7', 'film'],
  ['Income', '#16a34a', 'circle-dollar-sign'],
  ['Transfers', '#64748b', 'arrow-left-right'],
];

/** Creates a user with the default categories, in one unit of work. */
export async function createUser(store: AppStore, name: string): Promise<User> {
  const trimmed = name.trim();
  if (!/^[\w.@-]{1,64}$/.test(trimmed)) throw new Error('a user name is 1–64 letters, digits, or . _ @ -');
  // The admin commands take a user's name or id: a name shaped like an id could name another user.
  if (isRecordId(trimmed)) throw new Error('a user name may not have the shape of a user id (a UUID)');
  const user: User = { id: randomUUID(), name: trimmed, created_at: new Date().toISOString() };
  await store.atomically(async (unit) => {
    await unit.insertUser(user);
    for (const [category, color, icon] of DEFAULT_CATEGORIES)
      await unit.insertCategory(user.id, { id: randomUUID(), name: category, color, icon });
  });
  return user;
}

export function findUser(store: AppStore, idOrName: string): Promise<User | undefined> {
  return store.findUser(idOrName);
}

export function listUsers(store: AppStore): Promise<User[]> {
  return store.listUsers();
}

/** Issues a key and returns it: the only time it exists in plain text. */
export async function createApiKey(
  store: AppStore,
  userId: string,
  options: { name: string; scope?: Scope },
): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  const id = randomUUID();
  await store.insertApiKey({
    id,
    user_id: userId,
    name: options.name,
    key_hash: hashApiKey(key),
    scope: options.scope ?? 'read_write',
    created_at: new Date().toISOString(),
  });
  return { id, key };
}

/** Revokes the user's live keys whose name starts with `namePrefix` (all of them without one). */
export function revokeApiKeys(
  store: AppStore,
  userId: string,
  options: { namePrefix?: string } = {},
): Promise<number> {
  return store.revokeApiKeys(userId, options.namePrefix ?? '', new Date().toISOString());
}

/** The user's API keys as an operator lists them (never a hash), oldest first. */
export function listApiKeys(store: AppStore, userId: string): Promise<ApiKeyInfo[]> {
  return store.listApiKeys(userId);
}

/** Revokes one live key of the user by its id; whether it did. */
export async function revokeApiKey(store: AppStore, userId: string, id: string): Promise<boolean> {
  return (await store.revokeApiKey(userId, id, new Date().toISOString())) === 1;
}

const TOUCH_EVERY_MS = 60_000;
const lastTouched = new Map<string, number>();

/** The hash a presented key is looked up by, or `undefined` for one no key can be (empty, too long). */
export function presentedKeyHash(presented: string | undefined): Buffer | undefined {
  if (!presented || presented.length > 256) return undefined;
  return hashApiKey(presented);
}

/**
 * Resolves a presented key to its user, or `undefined`. Unknown, malformed and revoked keys look alike.
 * At once (no promise) when the store answers at once (SQLite with no unit of work open).
 */
export function authenticate(
  store: AppStore,
  presented: string | undefined,
): Awaitable<Principal | undefined> {
  const hash = presentedKeyHash(presented);
  return hash && authenticateHash(store, hash);
}

/** `authenticate`, from the presented key's hash (`presentedKeyHash`). */
export function authenticateHash(store: AppStore, hash: Buffer): Awaitable<Principal | undefined> {
  return thenApply(store.findActiveApiKey(hash), (row) => {
    if (!row || !hashesMatch(hash, row.key_hash)) return undefined;
    recordKeyUse(store, row.id);
    return { userId: row.user_id, keyId: row.id, scope: row.scope };
  });
}

/**
 * Notes that a key was used. Recording every use would make each request a write; once a minute
 * tells the same story.
 */
export function recordKeyUse(store: AppStore, keyId: string): void {
  const now = Date.now();
  const lastUsed = lastTouched.get(keyId) ?? 0;
  if (now - lastUsed < TOUCH_EVERY_MS) return;
  lastTouched.set(keyId, now);
  if (lastTouched.size > 10_000) lastTouched.clear();
  // Not awaited: the request does not wait for bookkeeping, and a failure only loses one timestamp.
  void store.touchApiKey(keyId, new Date(now).toISOString()).catch(() => lastTouched.delete(keyId));
}
