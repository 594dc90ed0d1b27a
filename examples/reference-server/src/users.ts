import { randomUUID } from 'node:crypto';
import type { Db } from './db.js';
import { apiKeyMatches, generateApiKey, hashApiKey } from './crypto.js';

export type Scope = 'read' | 'read_write';

export interface User {
  id: string;
  name: string;
  created_at: string;
}

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

export function createUser(db: Db, name: string): User {
  const trimmed = name.trim();
  if (!/^[\w.@-]{1,64}$/.test(trimmed)) throw new Error('a user name is 1–64 letters, digits, or . _ @ -');
  const user: User = { id: randomUUID(), name: trimmed, created_at: new Date().toISOString() };
  db.transaction(() => {
    db.prepare('INSERT INTO app_users (id, name, created_at) VALUES (?, ?, ?)').run(
      user.id,
      user.name,
      user.created_at,
    );
    const insert = db.prepare(
      'INSERT INTO app_categories (id, user_id, name, color, icon) VALUES (?, ?, ?, ?, ?)',
    );
    for (const [category, color, icon] of DEFAULT_CATEGORIES)
      insert.run(randomUUID(), user.id, category, color, icon);
  })();
  return user;
}

export function findUser(db: Db, idOrName: string): User | undefined {
  return db
    .prepare('SELECT id, name, created_at FROM app_users WHERE id = ? OR name = ?')
    .get(idOrName, idOrName) as User | undefined;
}

export function listUsers(db: Db): User[] {
  return db.prepare('SELECT id, name, created_at FROM app_users ORDER BY created_at').all() as User[];
}

/** Issues a key and returns it: the only time it exists in plain text. */
export function createApiKey(
  db: Db,
  userId: string,
  options: { name: string; scope?: Scope },
): { id: string; key: string } {
  const key = generateApiKey();
  const id = randomUUID();
  db.prepare(
    'INSERT INTO app_api_keys (id, user_id, name, key_hash, scope, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(id, userId, options.name, hashApiKey(key), options.scope ?? 'read_write', new Date().toISOString());
  return { id, key };
}

export function revokeApiKeys(db: Db, userId: string, options: { namePrefix?: string } = {}): number {
  const prefix = `${options.namePrefix ?? ''}%`;
  return db
    .prepare(
      'UPDATE app_api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND name LIKE ?',
    )
    .run(new Date().toISOString(), userId, prefix).changes;
}

/** Resolves a presented key to its user, or `undefined`. Unknown, malformed and revoked keys look alike. */
export function authenticate(db: Db, presented: string | undefined): Principal | undefined {
  if (!presented || presented.length > 256) return undefined;
  const row = db
    .prepare(
      'SELECT id, user_id, key_hash, scope FROM app_api_keys WHERE key_hash = ? AND revoked_at IS NULL',
    )
    .get(hashApiKey(presented)) as
    { id: string; user_id: string; key_hash: Buffer; scope: Scope } | undefined;
  if (!row || !apiKeyMatches(presented, row.key_hash)) return undefined;
  db.prepare('UPDATE app_api_keys SET last_used_at = ? WHERE id = ?').run(new Date().toISOString(), row.id);
  return { userId: row.user_id, keyId: row.id, scope: row.scope };
}
