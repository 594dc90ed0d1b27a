/**
 * The schema name and the advisory-lock keys derived from it. Every table name in SQL is
 * `<quoted schema>.<table>`, never resolved through `search_path`, because a pooled connection may be
 * shared with code that sets its own.
 */

/** The schema used when none is configured. */
export const DEFAULT_SCHEMA = 'finsync';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/i;

/**
 * Checks a schema name and returns it quoted for SQL. Only plain identifiers are accepted, so the
 * name can be spliced into statements (identifiers cannot be bound as parameters) without any
 * chance of injection; quoting keeps its case exactly as written.
 */
export function quoteSchema(schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema) || schema.length > 63) {
    throw new TypeError(
      `schema must match ${SCHEMA_NAME} and be at most 63 characters, got ${JSON.stringify(schema)}`,
    );
  }
  return `"${schema}"`;
}

/**
 * First key of the two-key advisory locks: which lock it is. Arbitrary constants ('FSMG', 'FSFD'),
 * chosen to be unlikely to collide with an application's own advisory locks.
 */
export const MIGRATION_LOCK = 0x46534d47;
export const FEED_LOCK = 0x46534644;

/**
 * Second key: which schema. Two schemas in one database then migrate and append to their feeds
 * independently. A hash collision between two schema names only makes them wait for each other.
 */
export function schemaLockKey(schema: string): number {
  // 32-bit FNV-1a, as a signed int4 (what pg_advisory_xact_lock(int4, int4) takes).
  let hash = 0x811c9dc5;
  for (let i = 0; i < schema.length; i += 1) {
    hash ^= schema.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
