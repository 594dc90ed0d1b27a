/**
 * `@finsync/sync/credentials`: keys kept by the engine, sealed at rest. `SealedCredentials` is a
 * `CredentialSource` for `new SyncEngine({ credentials })`, so a restarted process syncs every stored
 * connection; the sealing helpers are what the reference server seals its users' keys with too.
 */
export {
  MasterKeyError,
  POSIX_MODES,
  SealedSecretError,
  binding,
  loadMasterKey,
  openSecret,
  sealSecret,
} from './sealed.js';
export {
  CredentialsLockedError,
  SealedCredentials,
  fileCredentialRecords,
  memoryCredentialRecords,
  type CredentialRecords,
  type SealedCredentialsOptions,
  type SealedRecord,
} from './store.js';
