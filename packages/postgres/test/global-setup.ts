/**
 * Says once, in any reporter, why the PostgreSQL tests did not run: the verbose reporter also
 * names the reason on every skipped test, the default one only counts them.
 */
export default function setup(): void {
  if (!process.env['FINSYNC_TEST_POSTGRES_URL']) {
    console.warn(
      '[postgres] FINSYNC_TEST_POSTGRES_URL is not set: the PostgreSQL tests are skipped. ' +
        'Set it, e.g. to postgres://postgres@127.0.0.1:5432/test, to run them.',
    );
  }
}
