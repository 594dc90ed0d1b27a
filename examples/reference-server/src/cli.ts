/**
 * Administration from the command line: users, API keys and provider keys. Works while the server
 * runs, on SQLite and on PostgreSQL (DATABASE_URL and the FINSYNC_* variables choose the database as
 * for `npm start`). From the repository root: `npm run admin -- <command>`; `--help` on every command.
 *
 * It never creates a database: on SQLite it works on the file the server made (it says which), and
 * a missing file is an error naming it, not a new empty database in whatever directory it ran from.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { configFromEnv } from './config.js';
import { ApiProblem } from './problem.js';
import { ServerRuntime } from './runtime.js';
import {
  createApiKey,
  createUser,
  findUser,
  listApiKeys,
  listUsers,
  revokeApiKey,
  revokeApiKeys,
  type Scope,
} from './users.js';

/** A refusal said in one line: exit 2 for a command line that cannot work as given, else 1. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

function scope(value: string): Scope {
  if (value !== 'read' && value !== 'read_write') throw new InvalidArgumentError('read or read_write');
  return value;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write('Provider API key (paste it, then press Enter; it is not shown again): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && chunk.toString().includes('\n')) break;
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** Opens the server's data: the same database `npm start` uses, and only one that exists. */
async function withRuntime<T>(work: (runtime: ServerRuntime) => Promise<T>): Promise<T> {
  const { dataDir, database = { kind: 'sqlite' }, masterKey, allowedProviderBaseUrls } = configFromEnv();
  if (database.kind === 'sqlite') {
    const file = join(dataDir, 'finsync.db');
    if (!existsSync(file))
      throw new CliError(
        `no database at ${file}: start the server once (npm start) to create it, or set FINSYNC_DATA_DIR to the directory that has it`,
      );
    process.stderr.write(`database: ${file}\n`);
  } else process.stderr.write(`database: PostgreSQL (DATABASE_URL)\n`);
  const runtime = new ServerRuntime({
    dataDir,
    database,
    sandbox: false,
    ...(masterKey ? { masterKey } : {}),
    // The server's own list, so a key the server would accept for a provider URL is accepted here too.
    allowedProviderBaseUrls,
  });
  try {
    return await work(runtime);
  } finally {
    await runtime.close({ graceMs: 0 });
  }
}

// exitOverride before the commands: they copy it when created.
const program = new Command('admin')
  .exitOverride()
  .description('Administer the finsync reference server: users, API keys and provider keys.')
  .showHelpAfterError()
  .addHelpText(
    'after',
    '\nThe database is the one `npm start` uses: FINSYNC_DATA_DIR (default ./.data) or DATABASE_URL.\nExit codes: 0 done, 1 failed, 2 bad usage.',
  );

program
  .command('create-user')
  .description('Create a user and print an API key for it (once: keys are stored hashed)')
  .argument('<name>', '1–64 letters, digits, or . _ @ -')
  .option('--scope <scope>', 'read or read_write', scope, 'read_write' as Scope)
  .action(async (name: string, options: { scope: Scope }) =>
    withRuntime(async ({ store }) => {
      if (await findUser(store, name)) throw new CliError(`a user named ${name} exists already`);
      const user = await createUser(store, name);
      const { key } = await createApiKey(store, user.id, { name: 'cli', scope: options.scope });
      console.log(`user ${user.name} (${user.id})\napi key: ${key}`);
      process.stderr.write('The key is stored hashed: save it now, it cannot be shown again.\n');
    }),
  );

program
  .command('create-key')
  .description('Issue another API key for a user (printed once)')
  .argument('<user>', 'user name or id')
  .option('--scope <scope>', 'read or read_write', scope, 'read_write' as Scope)
  .option('--name <label>', 'a label for the key', 'cli')
  .action(async (userName: string, options: { scope: Scope; name: string }) =>
    withRuntime(async ({ store }) => {
      const user = (await findUser(store, userName)) ?? throwError(`no user ${userName}`);
      const { key } = await createApiKey(store, user.id, { name: options.name, scope: options.scope });
      console.log(key);
      process.stderr.write(`api key for ${user.name}: stored hashed, save it now.\n`);
    }),
  );

program
  .command('set-provider-key')
  .description("Store a user's provider key (read from standard input, never from an argument)")
  .argument('<user>', 'user name or id')
  .option('--base-url <url>', 'the provider URL, `sandbox`, or one allowed by FINSYNC_ALLOWED_PROVIDER_URLS')
  .action(async (userName: string, options: { baseUrl?: string }) =>
    withRuntime(async (runtime) => {
      const user = (await findUser(runtime.store, userName)) ?? throwError(`no user ${userName}`);
      const key = await readStdin();
      if (!key) throw new CliError('no key on standard input', 2);
      await runtime.setProviderKey(user.id, key, options.baseUrl);
      console.log(
        `provider key stored (encrypted) for ${user.name}; a running server uses it from its next sync of this user ` +
          '(the next scheduled one, or POST /api/v1/sync; one waiting for a new key has none scheduled)',
      );
    }),
  );

program
  .command('list-keys')
  .description(
    "List a user's API keys: id, name, scope, created, last used, revoked (never the key or its hash)",
  )
  .argument('<user>', 'user name or id')
  .action(async (userName: string) =>
    withRuntime(async ({ store }) => {
      const user = (await findUser(store, userName)) ?? throwError(`no user ${userName}`);
      const keys = await listApiKeys(store, user.id);
      if (keys.length === 0) console.log(`${user.name} has no API keys`);
      for (const k of keys)
        console.log(
          `${k.id}  ${k.name}  ${k.scope}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}` +
            (k.revoked_at ? `  revoked ${k.revoked_at}` : ''),
        );
    }),
  );

program
  .command('revoke-key')
  .description("Revoke one of a user's API keys at once (its id from list-keys), or all of them with --all")
  .argument('<user>', 'user name or id')
  .argument('[key-id]', 'the key to revoke, as list-keys shows it')
  .option('--all', "revoke every live key of the user (the page's sessions made with them end too)")
  .action(async (userName: string, keyId: string | undefined, options: { all?: boolean }) =>
    withRuntime(async ({ store }) => {
      const user = (await findUser(store, userName)) ?? throwError(`no user ${userName}`);
      // Neither is as wrong as both (neither revoked "key undefined" before).
      if (Boolean(options.all) === (keyId !== undefined))
        throw new CliError('give a key id (see list-keys) or --all: one of the two', 2);
      if (options.all) {
        console.log(`revoked ${await revokeApiKeys(store, user.id)} key(s) of ${user.name}`);
        return;
      }
      if (!(await revokeApiKey(store, user.id, keyId!)))
        throw new CliError(`${user.name} has no live key ${keyId} (see list-keys)`);
      console.log(`revoked key ${keyId} of ${user.name}: refused from the next request on`);
    }),
  );

program
  .command('list-users')
  .description('List the users: id, name, created')
  .action(async () =>
    withRuntime(async ({ store }) => {
      for (const user of await listUsers(store)) console.log(`${user.id}  ${user.name}  ${user.created_at}`);
    }),
  );

function throwError(message: string): never {
  throw new CliError(message);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  // --help asked for is a success; help shown because the command line was wrong is not.
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (typeof code === 'string' && code.startsWith('commander.')) process.exit(2);
  // A refusal the API would answer 422 says why, as the API does.
  const details = error instanceof ApiProblem && error.errors?.length ? `: ${error.errors.join('; ')}` : '';
  console.error(`admin: ${error instanceof Error ? error.message : String(error)}${details}`);
  process.exit(error instanceof CliError ? error.exitCode : 1);
}
