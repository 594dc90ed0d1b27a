/**
 * Whether a PostgreSQL server is there to benchmark against. Only `pg` is imported here, so the
 * parent process can probe without loading the storage packages (those load in the children).
 */
import pg from 'pg';

/** FINSYNC_TEST_POSTGRES_URL, then DATABASE_URL, then a local server with trust auth. */
export function postgresUrl(): string {
  return (
    process.env.FINSYNC_TEST_POSTGRES_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/test'
  );
}

/** The server's version, or why it cannot be used. */
export type PostgresProbe = { version: string } | { reason: string };

export async function probePostgres(url: string): Promise<PostgresProbe> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return { version: rows[0]?.v ?? 'unknown' };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}
