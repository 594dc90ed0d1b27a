/**
 * The page's sign-in sessions, kept in this process's memory. The browser holds a random token in an
 * HttpOnly cookie; the server keeps only the token's SHA-256, the user, the key's scope and the hash
 * of the API key it was opened with (what the database holds anyway), so revoking the key ends the
 * session. Bounded: a user's oldest session goes when that user has too many, and the oldest of all
 * when the table is full. A restart signs everyone out.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '../store/types.js';

export interface Session {
  userId: string;
  scope: Scope;
  /** SHA-256 of the API key the session was opened with: checked against the live keys on each use. */
  keyHash: Buffer;
  expiresAt: number;
}

export interface SessionStoreOptions {
  /** Default 12 hours. */
  ttlMs?: number;
  /** Default 10,000. */
  maxSessions?: number;
  /**
   * Default 20. A user's sign-ins past this end that user's oldest session, not anyone else's:
   * one key signing in over and over cannot push other users out of a full table.
   */
  maxSessionsPerUser?: number;
  now?: () => number;
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A token is 32 random bytes, base64url: 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class SessionStore {
  readonly ttlMs: number;
  readonly #max: number;
  readonly #maxPerUser: number;
  readonly #now: () => number;
  /** Insertion order is age order: the first entry is the oldest. */
  readonly #sessions = new Map<string, Session>();

  constructor(options: SessionStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 12 * 3_600_000;
    this.#max = options.maxSessions ?? 10_000;
    this.#maxPerUser = options.maxSessionsPerUser ?? 20;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Opens a session and returns its token: the only place the token exists in clear. */
  create(fields: Omit<Session, 'expiresAt'>): string {
    this.#sweep();
    const own = [...this.#sessions].filter(([, s]) => s.userId === fields.userId).map(([id]) => id);
    for (const id of own.slice(0, Math.max(0, own.length - this.#maxPerUser + 1))) this.#sessions.delete(id);
    while (this.#sessions.size >= this.#max) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const token = randomBytes(32).toString('base64url');
    this.#sessions.set(digest(token), { ...fields, expiresAt: this.#now() + this.ttlMs });
    return token;
  }

  /** The live session of a token, or `undefined` (unknown, malformed and expired tokens look alike). */
  get(token: string | undefined): Session | undefined {
    if (!token || !TOKEN.test(token)) return undefined;
    const id = digest(token);
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session;
  }

  delete(token: string | undefined): void {
    if (token && TOKEN.test(token)) this.#sessions.delete(digest(token));
  }

  #sweep(): void {
    // Every session lives as long, so the oldest expire first: stop at the first live one.
    const now = this.#now();
    for (const [id, session] of this.#sessions) {
      if (session.expiresAt > now) break;
      this.#sessions.delete(id);
    }
  }
}
