import { warnWhenPostgresIsMissing } from '@finsync/test-utils';

/**
 * Says once, in any reporter, why the PostgreSQL half of each suite did not run: the verbose
 * reporter also names the reason on every skipped test, the default one only counts them.
 */
export default function setup(): void {
  warnWhenPostgresIsMissing('reference-server');
}
