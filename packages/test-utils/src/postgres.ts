/**
 * The PostgreSQL rule every suite follows: the tests run against the server named by one
 * environment variable, and when it is unset they skip and say why in the suite's name, so a
 * skipped run is never mistaken for a passing one.
 */
import { randomBytes } from 'node:crypto';

/** The environment variable naming the server the tests may use (CI sets it). */
export const POSTGRES_URL_VARIABLE = 'FINSYNC_TEST_POSTGRES_URL';

/** Why the PostgreSQL tests did not run; shown in the name of every skipped suite. */
export const POSTGRES_SKIP_REASON = `${POSTGRES_URL_VARIABLE} is not set`;

/** The server's connection string, or undefined (unset or empty): then the PostgreSQL tests skip. */
export function testPostgresUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[POSTGRES_URL_VARIABLE] || undefined;
}

/**
 * A suite name that carries the reason when there is no server, for
 * `describe.skipIf(!url)(postgresSuiteName('…'), …)`: the verbose reporter then shows why.
 */
export function postgresSuiteName(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return testPostgresUrl(env) ? name : `${name} (skipped: ${POSTGRES_SKIP_REASON})`;
}

/**
 * For a project's global setup: says once, in any reporter, that its PostgreSQL tests are skipped
 * (the default reporter only counts skipped tests). Returns whether it warned.
 */
export function warnWhenPostgresIsMissing(project: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (testPostgresUrl(env)) return false;
  console.warn(
    `[${project}] ${POSTGRES_SKIP_REASON}: the PostgreSQL tests are skipped. ` +
      `Set it, e.g. to postgres://postgres@127.0.0.1:5432/test, to run them.`,
  );
  return true;
}

/**
 * A schema name no other test, and no test run at the same time, uses: `<prefix>_<12 hex digits>`.
 * Safe to quote into SQL (letters, digits and underscores only, when the prefix is).
 */
export function freshSchemaName(prefix = 'finsync_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
