#!/usr/bin/env node
/**
 * `finsync`: keep a local database of your bank data current from the provider (Lunch Flow), and
 * read it back (status, change feed, export). One small file per command under `commands/`.
 */
import { MAX_CONNECTION_ID_LENGTH } from '@finsync/sync';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_CONNECTION, DEFAULT_DATABASE, DEFAULT_SANDBOX_DAYS, DEFAULT_SCHEMA } from './defaults.js';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes.js';
import { redact } from './io.js';

// Inlined by the build, so the version is right wherever the bundle runs from.
import pkg from '../package.json' with { type: 'json' };

const { version } = pkg;

// Each command is loaded when it runs: `--help` and usage errors answer without loading the
// engine, the provider client and the database drivers (most of the start-up time).
const commands = {
  sync: () => import('./commands/sync.js').then((m) => m.syncCommand),
  status: () => import('./commands/status.js').then((m) => m.statusCommand),
  feed: () => import('./commands/feed.js').then((m) => m.feedCommand),
  export: () => import('./commands/export.js').then((m) => m.exportCommand),
  watch: () => import('./commands/watch.js').then((m) => m.watchCommand),
  key: () => import('./commands/key.js'),
};

const ENVIRONMENT_HELP = `Environment:
  LUNCHFLOW_API_KEY         the provider API key (never give it as an argument: it would land in shell history)
  LUNCHFLOW_BASE_URL        the provider's base URL, e.g. a proxy or a test server
  FINSYNC_DATABASE          the database, as --database
  FINSYNC_PG_SCHEMA         the PostgreSQL schema, as --schema
  FINSYNC_MASTER_KEY        the master key stored keys are sealed under (32 bytes, hex or base64),
                            instead of finsync.master.key in the database's directory
  FINSYNC_CREDENTIALS_FILE  where stored keys are kept (default <database>.credentials.json for
                            SQLite, ./finsync.credentials.json for PostgreSQL)
  FINSYNC_DEBUG             set: print the stack of an unexpected error`;

/**
 * Flags that would carry the key. They are refused before parsing, with a message that does not
 * echo them: commander's "unknown option '--key=…'" would print the key to the terminal and logs.
 */
const KEY_FLAG = /^-{1,2}(?!-)(?!key-file(?:=|$))[\w-]*(?:key|token|secret|passw(?:or)?d)[\w-]*(?:=|$)/i;

function keyFlagIn(argv: string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (KEY_FLAG.test(arg)) return true;
  }
  return false;
}

function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a whole number ≥ ${min}`
          : `expected a whole number from ${min} to ${max}`,
      );
    return n;
  };
}

function minutes(value: string): number {
  const n = Number(value);
  // The provider refreshes from banks about daily; more often than a minute only burns the rate limit.
  if (!Number.isFinite(n) || n < 1) throw new InvalidArgumentError('expected minutes ≥ 1');
  return n;
}

/** The sandbox's own bound on its history: a hundred years. */
const MAX_SANDBOX_DAYS = 36_525;

/** The longest wait a Node timer takes (2^31 − 1 ms); past it a timer fires at once. */
const MAX_TIMER_SECONDS = 2_147_483;

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0.1 || n > MAX_TIMER_SECONDS)
    throw new InvalidArgumentError(`expected seconds from 0.1 to ${MAX_TIMER_SECONDS}`);
  return n;
}

function day(value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  // From the year 1000: no bank has rows from before, and a first sync would walk windows from it.
  if (
    !/^[1-9]\d{3}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== value
  )
    throw new InvalidArgumentError('expected a date YYYY-MM-DD, from the year 1000');
  return value;
}

/**
 * A connection id to look up: one stored before the engine bounded new ids may be longer than a new
 * one can be, so only ids no store can hold are refused (and a length no id comes near).
 */
function connectionId(value: string): string {
  if (value === '' || value.includes('\u0000') || value.length > 65_536)
    throw new InvalidArgumentError('expected a connection id: not empty, without U+0000');
  return value;
}

/** A connection id that may be new (sync, watch, key set): as the engine takes one, before a database is made. */
function newConnectionId(value: string): string {
  if (connectionId(value).length > MAX_CONNECTION_ID_LENGTH)
    throw new InvalidArgumentError(
      `expected a connection id of 1 to ${MAX_CONNECTION_ID_LENGTH} characters, without U+0000`,
    );
  return value;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

function withDatabase(command: Command): Command {
  return command
    .addOption(
      new Option('-d, --database <path|url>', 'SQLite file, or a postgres:// URL')
        .env('FINSYNC_DATABASE')
        .default(DEFAULT_DATABASE),
    )
    .addOption(
      new Option('--schema <name>', 'PostgreSQL schema holding the tables')
        .env('FINSYNC_PG_SCHEMA')
        .default(DEFAULT_SCHEMA),
    )
    .hook('preAction', (thisCommand) => {
      // Given on the command line beside a SQLite file, it was ignored without a word.
      const { database } = thisCommand.opts<{ database: string }>();
      if (
        thisCommand.getOptionValueSource('schema') === 'cli' &&
        !/^postgres(ql)?:\/\//i.test(database.trim())
      )
        throw new CliError(
          `--schema names a PostgreSQL schema: it goes with --database postgres://…, not with the SQLite file ${database}`,
        );
    });
}

function withProvider(command: Command): Command {
  return command
    .option('--key-file <path>', 'read the API key from this file (- for stdin) instead of LUNCHFLOW_API_KEY')
    .option('--sandbox', 'sync from a built-in sandbox provider: made-up bank data, no key needed')
    .option(
      '--sandbox-days <days>',
      `days of sandbox history (default ${DEFAULT_SANDBOX_DAYS})`,
      integer(1, MAX_SANDBOX_DAYS),
    )
    .option(
      '--start-date <YYYY-MM-DD>',
      'first day mirrored: no sync reads rows dated before it (default: all)',
      day,
    )
    .option(
      '--connection <id>',
      'connection id in the database (default "default", or "sandbox" with --sandbox)',
      newConnectionId,
    )
    .option('-v, --verbose', "print the engine's and the provider client's logs on stderr");
}

function help(command: Command, examples: string[]): Command {
  return command.addHelpText(
    'after',
    `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n\n${ENVIRONMENT_HELP}\n\n${EXIT_CODES_HELP}\n`,
  );
}

function buildProgram(setCode: (code: number) => void): Command {
  const program = new Command('finsync')
    .description('Keep a local database of your bank data current from the provider (Lunch Flow).')
    .version(version, '-V, --version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');

  help(
    withProvider(withDatabase(program.command('sync').description('sync once, then print a summary')))
      .option('--no-progress', 'no progress output on stderr')
      .option('--json', 'print the sync report as JSON instead of the table')
      .action(async (flags) => setCode(await (await commands.sync())(flags))),
    [
      'LUNCHFLOW_API_KEY=… finsync sync',
      'finsync sync --key-file ~/.config/finsync/key --database ~/finance/finsync.db',
      'finsync sync --database postgres://me@localhost/money',
      'finsync sync --sandbox',
    ],
  );

  help(
    withDatabase(
      program.command('status').description('connections, accounts, balances, freshness, last issues'),
    )
      .option('--connection <id>', 'only this connection (default: all)', connectionId)
      .option('--json', 'print JSON')
      .action(async (flags) => setCode(await (await commands.status())(flags))),
    ['finsync status', 'finsync status --json | jq .connections[0].accounts'],
  );

  help(
    withDatabase(
      program.command('feed').description('the change feed as NDJSON on stdout, one change per line'),
    )
      .option('--after <seq>', 'only changes after this seq (your saved cursor)', integer(0), 0)
      .option('-f, --follow', 'keep polling for new changes until Ctrl-C')
      .option('--poll <seconds>', 'seconds between polls with --follow', seconds, 2)
      .option('--connection <id>', 'only this connection (default: all)', connectionId)
      .action(async (flags, command: Command) => {
        // Without --follow there is no second poll: a --poll given was ignored without a word.
        if (command.getOptionValueSource('poll') === 'cli' && !flags.follow)
          throw new CliError(
            '--poll sets the seconds between polls of --follow: give --follow too, or leave --poll out',
          );
        setCode(await (await commands.feed())(flags));
      }),
    [
      'finsync feed --after 0 > changes.ndjson',
      'finsync feed --after "$(tail -n1 changes.ndjson | jq .seq)" --follow',
    ],
  );

  help(
    withDatabase(program.command('export').description('transactions as CSV or JSON'))
      .addOption(new Option('--format <format>', 'output format').choices(['csv', 'json']).default('csv'))
      .option('--from <YYYY-MM-DD>', 'first day, inclusive', day)
      .option('--to <YYYY-MM-DD>', 'last day, inclusive', day)
      .option('--account <id>', 'only this account (repeat for more)', collect)
      .option('-o, --output <file>', 'write to this file instead of stdout')
      .option('--connection <id>', 'connection (default: "default", or the only one)', connectionId)
      .action(async (flags) => setCode(await (await commands.export())(flags))),
    [
      'finsync export --format csv --from 2026-01-01 -o 2026.csv',
      'finsync export --format json --account 4711',
    ],
  );

  help(
    withProvider(withDatabase(program.command('watch').description('sync on a schedule, in the foreground')))
      .option('--interval <minutes>', 'minutes between runs (± 10 %)', minutes, 360)
      .action(async (flags) => setCode(await (await commands.watch())(flags))),
    ['finsync watch', 'finsync watch --interval 60 --key-file /run/secrets/lunchflow'],
  );

  const key = program
    .command('key')
    .description('store the API key sealed on disk, so sync and watch run with none in the environment');
  help(
    withDatabase(
      key
        .command('set')
        .description('seal the key (from LUNCHFLOW_API_KEY, --key-file or stdin) and store it'),
    )
      .option(
        '--connection <id>',
        `the connection it is for (default "${DEFAULT_CONNECTION}")`,
        newConnectionId,
      )
      .option('--key-file <path>', 'read the key from this file (- for stdin) instead of LUNCHFLOW_API_KEY')
      .addOption(
        new Option('--base-url <url>', 'the provider URL the key is sealed to (default: the provider)').env(
          'LUNCHFLOW_BASE_URL',
        ),
      )
      .action(async (flags) => setCode(await (await commands.key()).keySetCommand(flags))),
    [
      'pass show lunchflow | finsync key set',
      'finsync key set --key-file ~/.config/finsync/key --database ~/finance/finsync.db',
      'LUNCHFLOW_API_KEY=… finsync key set --connection household',
    ],
  );
  help(
    withDatabase(key.command('remove').description("delete a connection's stored key"))
      .option('--connection <id>', `the connection (default "${DEFAULT_CONNECTION}")`, connectionId)
      .action(async (flags) => setCode(await (await commands.key()).keyRemoveCommand(flags))),
    ['finsync key remove', 'finsync key remove --connection household'],
  );
  help(
    withDatabase(
      key
        .command('status')
        .description('which connections have a stored key, and whether it can be used here (never the key)'),
    )
      .option('--json', 'print JSON')
      .action(async (flags) => setCode(await (await commands.key()).keyStatusCommand(flags))),
    ['finsync key status', 'finsync key status --json'],
  );

  program.addHelpText('after', `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODES_HELP}\n`);
  return program;
}

async function main(argv: string[]): Promise<number> {
  if (keyFlagIn(argv.slice(2))) {
    process.stderr.write(
      'finsync: the API key is never taken as an argument (it would land in your shell history);\n' +
        'set LUNCHFLOW_API_KEY, use --key-file <path>, or store it with `finsync key set` (it reads stdin)\n',
    );
    return ExitCode.usage;
  }
  let code: number = ExitCode.ok;
  try {
    await buildProgram((c) => (code = c)).parseAsync(argv);
    return code;
  } catch (error) {
    // commander has printed its message (or the help, or the version) already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    // options.js is loaded by every command that opens a database; not before, for --help's speed.
    const known = error instanceof CliError ? error : (await import('./options.js')).databaseFailure(error);
    if (known) {
      process.stderr.write(`finsync: ${redact(known.message)}\n`);
      return known.exitCode;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`finsync: unexpected error: ${redact(message)}\n`);
    if (process.env.FINSYNC_DEBUG && error instanceof Error && error.stack)
      process.stderr.write(`${redact(error.stack)}\n`);
    return ExitCode.unexpected;
  }
}

const code = await main(process.argv);
process.exitCode = code;
// Normally the process ends by itself once everything is closed, with stdout flushed. Should a
// handle linger (a socket a server keeps alive), this ends it anyway; unref'd, it never delays exit.
setTimeout(() => process.exit(code), 2_000).unref();
