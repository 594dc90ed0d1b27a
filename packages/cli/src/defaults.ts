/** Defaults shared by the help text and the option resolution, in a module that loads nothing else. */
export const DEFAULT_DATABASE = './finsync.db';
export const DEFAULT_SCHEMA = 'finsync';
export const DEFAULT_CONNECTION = 'default';
/** `--sandbox` syncs into its own connection, so sandbox rows never mix with a real key's. */
export const SANDBOX_CONNECTION = 'sandbox';
/** Days of history the sandbox serves unless `--sandbox-days` says otherwise. */
export const DEFAULT_SANDBOX_DAYS = 90;
