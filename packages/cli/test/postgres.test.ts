/** `--database postgres://…`, when a server is there to test on (FINSYNC_TEST_POSTGRES_URL). */
import { tmpdir } from 'node:os';
import { PostgresStorage } from '@finsync/postgres';
import { freshSchemaName, postgresSuiteName, testPostgresUrl } from '@finsync/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

const url = testPostgresUrl();
const schema = freshSchemaName('cli_test');
const absent = `${schema}_absent`;

describe.skipIf(!url)(postgresSuiteName('finsync on PostgreSQL'), () => {
  const admin = url ? new PostgresStorage({ connectionString: url, migrate: 'manual' }) : undefined;

  afterAll(async () => {
    await admin?.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.pool.query(`DROP SCHEMA IF EXISTS "${absent}" CASCADE`);
    await admin?.close();
  });

  it('syncs into a schema, reads it back, and never creates one to read', async () => {
    const database = ['--database', url!, '--schema', schema];
    const sync = await runCli(['sync', '--sandbox', '--sandbox-days', '30', '--no-progress', ...database], {
      cwd: tmpdir(),
    });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain(`(PostgreSQL, schema ${schema})`);

    const status = await runCli(['status', ...database], { cwd: tmpdir() });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('connection sandbox: active');

    const missing = await runCli(['status', '--database', url!, '--schema', absent], { cwd: tmpdir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('run `finsync sync` first');
    const { rows } = await admin!.pool.query(
      'SELECT 1 FROM information_schema.schemata WHERE schema_name = $1',
      [absent],
    );
    expect(rows).toHaveLength(0);
  });
});
