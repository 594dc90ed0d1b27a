/**
 * Helpers the finsync test suites share, so that each is written once instead of copied into every
 * package's tests. Private, tests only: imported from `test/` folders, never from a package's `src`,
 * never published.
 */
export { PROVIDER_BASE_URL, SERVICE_API_URL, SERVICE_BASE_URL } from './base-urls.js';
export { listenDuringTests, useMswServer } from './msw-server.js';
export {
  POSTGRES_SKIP_REASON,
  POSTGRES_URL_VARIABLE,
  freshSchemaName,
  postgresSuiteName,
  testPostgresUrl,
  warnWhenPostgresIsMissing,
} from './postgres.js';
export {
  readmeBlock,
  runReadmeExample,
  usePackageReadme,
  type PackageReadme,
  type ReadmeExample,
} from './readme-example.js';
export { heldFetch } from './held-fetch.js';
export { stalledAnswerFetch } from './stalled-answer.js';
export { makeTempDir, removeTempDir, useTempDirs } from './temp-dir.js';
export { holdsTakenForLaterTwins, type TwinRuleRow } from './twin-limits.js';
