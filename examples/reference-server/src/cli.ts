/**
 * Administration from the command line (works while the server runs, on SQLite and on PostgreSQL;
 * DATABASE_URL and the FINSYNC_* variables choose the database as for `npm start`).
 *
 *   npm run cli -- create-user <name> [--scope read|read_write]     creates a user, prints a key once
 *   npm run cli -- create-key <user> [--scope read|read_write] [--name <label>]
 *   npm run cli -- set-provider-key <user> [--base-url <url>|sandbox]   reads the key from stdin
 *   npm run cli -- list-users
 *
 * A provider key set here is used from the server's next start, or its next POST /api/v1/sync for that
 * user; PUT /api/v1/provider applies at once.
 */
import { resolve } from 'node:path';
import { ReferenceServerCore } from './core.js';
import { databaseFromEnv } from './store/open.js';
import { createApiKey, createUser, findUser, listUsers, type Scope } from './users.js';

const [command, ...rest] = process.argv.slice(2);
const flag = (name: string) => {
  const index = rest.indexOf(`--${name}`);
  return index === -1 ? undefined : rest[index + 1];
};
const positional = rest.filter((arg, i) => !arg.startsWith('--') && !rest[i - 1]?.startsWith('--'));

function fail(message: string): never {
  throw new Error(message);
}

function scope(): Scope {
  const value = flag('scope') ?? 'read_write';
  if (value !== 'read' && value !== 'read_write') fail('--scope is read or read_write');
  return value;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write(
      'Provider API key (input is not echoed by most terminals when pasted; end with Enter): ',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && chunk.toString().includes('\n')) break;
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

const core = new ReferenceServerCore({
  dataDir: resolve(process.env.FINSYNC_DATA_DIR ?? resolve(process.env.INIT_CWD ?? process.cwd(), '.data')),
  database: databaseFromEnv(),
  ...(process.env.FINSYNC_MASTER_KEY ? { masterKey: process.env.FINSYNC_MASTER_KEY } : {}),
  sandbox: false,
});
const { store } = core;
let status = 0;

try {
  switch (command) {
    case 'create-user': {
      const name = positional[0] ?? fail('usage: create-user <name> [--scope read|read_write]');
      if (await findUser(store, name)) fail(`a user named ${name} exists already`);
      const user = await createUser(store, name);
      const { key } = await createApiKey(store, user.id, { name: 'cli', scope: scope() });
      console.log(
        `user ${user.name} (${user.id})\napi key: ${key}\nThe key is stored hashed: save it now, it cannot be shown again.`,
      );
      break;
    }
    case 'create-key': {
      const user =
        (await findUser(store, positional[0] ?? fail('usage: create-key <user> [--scope …] [--name …]'))) ??
        fail('no such user');
      const { key } = await createApiKey(store, user.id, { name: flag('name') ?? 'cli', scope: scope() });
      console.log(
        `api key for ${user.name}: ${key}\nThe key is stored hashed: save it now, it cannot be shown again.`,
      );
      break;
    }
    case 'set-provider-key': {
      const user =
        (await findUser(
          store,
          positional[0] ?? fail('usage: set-provider-key <user> [--base-url …] < key'),
        )) ?? fail('no such user');
      const key = await readStdin();
      if (!key) fail('no key on standard input');
      await core.setProviderKey(user.id, key, flag('base-url'));
      console.log(`provider key stored (encrypted) for ${user.name}; the server uses it from its next start`);
      break;
    }
    case 'list-users':
      for (const user of await listUsers(store)) console.log(`${user.id}  ${user.name}  ${user.created_at}`);
      break;
    default:
      fail('commands: create-user, create-key, set-provider-key, list-users');
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  status = 2;
} finally {
  await core.close();
}
process.exit(status);
