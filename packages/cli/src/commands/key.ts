/**
 * `finsync key set|remove|status`: a key kept between runs, sealed by `@finsync/sync/credentials`
 * (see ../vault.ts), so `sync` and `watch` run after a restart with no key in the environment.
 * Nothing here opens the database, and nothing prints a key.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SealedCredentials, fileCredentialRecords } from '@finsync/sync/credentials';
import { DEFAULT_CONNECTION } from '../defaults.js';
import { CliError, ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { note, rememberSecret } from '../io.js';
import {
  describeDatabase,
  keyProblem,
  readKeyFile,
  resolveDatabase,
  type DatabaseFlags,
} from '../options.js';
import { table } from '../summary.js';
import {
  bindingUrl,
  describeMasterKey,
  keySetAgain,
  masterKey,
  readRecords,
  shownUrl,
  vaultLocation,
} from '../vault.js';

export interface KeySetFlags extends DatabaseFlags {
  connection?: string;
  keyFile?: string;
  /** From `--base-url`, else `LUNCHFLOW_BASE_URL`. */
  baseUrl?: string;
}

export interface KeyRemoveFlags extends DatabaseFlags {
  connection?: string;
}

export interface KeyStatusFlags extends DatabaseFlags {
  json?: boolean;
}

/** `--key-file`, else `LUNCHFLOW_API_KEY`, else stdin when it is not a terminal. Never an argument. */
function readKey(flags: KeySetFlags, env: NodeJS.ProcessEnv): string {
  const key = readKeyFrom(flags, env);
  const problem = keyProblem(key);
  // Stored, it would fail every sync as an unreachable provider.
  if (problem) throw new CliError(`the key ${problem}: give the key alone`);
  return key;
}

function readKeyFrom(flags: KeySetFlags, env: NodeJS.ProcessEnv): string {
  if (flags.keyFile !== undefined) return readKeyFile(flags.keyFile);
  const fromEnv = env.LUNCHFLOW_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  const none =
    'no key to store: pipe it in (`pass show lunchflow | finsync key set`), set LUNCHFLOW_API_KEY, or pass --key-file <path>';
  if (process.stdin.isTTY) throw new CliError(none);
  const key = readFileSync(0, 'utf8').trim();
  if (key === '') throw new CliError(none);
  if (/\s/.test(key)) throw new CliError('the key on stdin must be the key alone, on one line');
  return key;
}

function sealedTo(raw: string | undefined): string | null {
  const url = bindingUrl(raw, '--base-url (or LUNCHFLOW_BASE_URL)');
  // The URL is stored beside the sealed key in the clear: no place for a password.
  if (url !== null) {
    const parsed = new URL(url);
    if (parsed.username || parsed.password)
      throw new CliError('--base-url (or LUNCHFLOW_BASE_URL) with a user or password cannot be stored');
  }
  return url;
}

export async function keySetCommand(flags: KeySetFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const connectionId = flags.connection ?? DEFAULT_CONNECTION;
  const baseUrl = sealedTo(flags.baseUrl);
  const apiKey = readKey(flags, process.env);
  rememberSecret(apiKey);
  const location = vaultLocation(target, process.env);
  // Another entry that is not a record stays as it is; a file that is not JSON is refused, not replaced.
  readRecords(location.file);
  const created = !location.masterKeyValue && !existsSync(location.masterKeyFile);
  const key = masterKey(location, true)!;
  mkdirSync(dirname(location.file), { recursive: true, mode: 0o700 });
  const vault = new SealedCredentials({
    masterKey: key,
    records: fileCredentialRecords(location.file),
    allowedBaseUrls: baseUrl === null ? [] : [baseUrl],
  });
  await vault.set(connectionId, { apiKey, baseUrl });
  if (created) note(`created the master key ${location.masterKeyFile} (mode 0600)`);
  process.stdout.write(
    `stored the key for connection ${connectionId} in ${location.file}\n` +
      `  sealed to ${shownUrl(baseUrl)}, under the master key ${describeMasterKey(location)}\n` +
      `  for the database ${describeDatabase(target)}\n`,
  );
  return ExitCode.ok;
}

export async function keyRemoveCommand(flags: KeyRemoveFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const connectionId = flags.connection ?? DEFAULT_CONNECTION;
  const location = vaultLocation(target, process.env);
  const records = readRecords(location.file);
  if (!records.has(connectionId)) {
    const known = [...records.keys()];
    throw new CliError(
      `no stored key for connection ${connectionId} in ${location.file}` +
        (known.length > 0 ? ` (stored: ${known.join(', ')})` : ''),
    );
  }
  await fileCredentialRecords(location.file).delete(connectionId);
  process.stdout.write(`removed the stored key for connection ${connectionId} from ${location.file}\n`);
  return ExitCode.ok;
}

type KeyState = 'usable' | 'sealed to another URL' | 'cannot be opened';

/**
 * Which connections have a stored key, where each is sealed to, and whether this environment can
 * use it: it opens under the master key, and `LUNCHFLOW_BASE_URL` (or its absence) agrees with the
 * URL. Exit 2 when one cannot be used. The key itself is opened to check it, never shown.
 */
export async function keyStatusCommand(flags: KeyStatusFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const location = vaultLocation(target, process.env);
  const records = readRecords(location.file);
  const runUrl = bindingUrl(process.env.LUNCHFLOW_BASE_URL, 'LUNCHFLOW_BASE_URL');
  const key = records.size > 0 ? masterKey(location, false) : undefined;
  const vault = key
    ? new SealedCredentials({
        masterKey: key,
        records: fileCredentialRecords(location.file),
        allowedBaseUrls: [...records.values()].flatMap((r) => (r?.baseUrl ? [r.baseUrl] : [])),
      })
    : undefined;
  const keys: Array<{ connection: string; sealedTo: string | null; state: KeyState }> = [];
  for (const [connection, record] of [...records].sort(([a], [b]) => a.localeCompare(b))) {
    const opened = record && vault ? await vault.source(connection) : undefined;
    if (opened && 'apiKey' in opened) rememberSecret(opened.apiKey);
    const state: KeyState = !opened
      ? 'cannot be opened'
      : record!.baseUrl !== runUrl
        ? 'sealed to another URL'
        : 'usable';
    keys.push({ connection, sealedTo: record ? shownUrl(record.baseUrl) : null, state });
  }
  const code = keys.every((k) => k.state === 'usable') ? ExitCode.ok : ExitCode.usage;
  const master =
    location.masterKeyValue || existsSync(location.masterKeyFile) ? describeMasterKey(location) : null;
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ credentialsFile: location.file, masterKey: master, keys }, null, 2)}\n`,
    );
    return code;
  }
  const out = [`credentials: ${location.file}`, `master key: ${master ?? 'none yet'}`];
  if (keys.length === 0) out.push('no stored keys: store one with `finsync key set`');
  else {
    const t = table(['connection', 'sealed to', 'state']);
    for (const k of keys) t.push([k.connection, k.sealedTo ?? '?', k.state]);
    out.push(t.toString());
  }
  for (const k of keys) {
    if (k.state === 'cannot be opened')
      out.push(
        `connection ${k.connection}: altered, copied from another connection or URL, or sealed under another master key; ${keySetAgain(k.connection)}`,
      );
    else if (k.state === 'sealed to another URL')
      out.push(
        `connection ${k.connection}: ` +
          (runUrl === null
            ? 'LUNCHFLOW_BASE_URL is not set here; set it to the URL above'
            : `LUNCHFLOW_BASE_URL is ${shownUrl(runUrl)} here; set it to the URL above (or unset it for the default)`) +
          `, or ${keySetAgain(k.connection)} for this URL`,
      );
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return code;
}
