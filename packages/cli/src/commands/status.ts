/** `finsync status`: what the database holds and how fresh it is, without calling the provider. */
import {
  SyncEngine,
  type AccountSuccessor,
  type AccountSyncState,
  type ConnectionState,
  type MirrorAccount,
  type Storage,
} from '@finsync/sync';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import {
  describeDatabase,
  openStorage,
  resolveConnection,
  resolveDatabase,
  type DatabaseFlags,
} from '../options.js';
import { ago, formatBalance, formatCheck, formatTime, table } from '../summary.js';

export interface StatusFlags extends DatabaseFlags {
  connection?: string;
  json?: boolean;
}

/** An account that continues another (the bank linked again), without the row-by-row pairs. */
interface Successor {
  previous: string;
  successor: string;
  from: string;
  to: string;
  previousRows: number;
  successorRows: number;
  shared: number;
}

interface ConnectionStatus {
  connection: ConnectionState;
  accounts: Array<{ account: MirrorAccount; sync: AccountSyncState | null; transactions: number }>;
  /** Accounts whose history is stored twice, under an old link and a new one. */
  successors: Successor[];
}

function successorOf(found: AccountSuccessor): Successor {
  const { previous, successor, from, to, previousRows, successorRows, rows } = found;
  return {
    previous: previous.id,
    successor: successor.id,
    from,
    to,
    previousRows,
    successorRows,
    shared: rows.length,
  };
}

async function collect(storage: Storage, connection: ConnectionState): Promise<ConnectionStatus> {
  const states = new Map((await storage.listAccountStates(connection.id)).map((s) => [s.accountId, s]));
  const accounts = [];
  for (const account of await storage.listAccounts(connection.id)) {
    accounts.push({
      account,
      sync: states.get(account.id) ?? null,
      transactions: await storage.countTransactions(connection.id, account.id),
    });
  }
  // Only where an account is no longer read can another continue it; a history past the engine's
  // bound is left unjudged rather than read whole.
  const successors = accounts.some((a) => a.account.state !== 'active')
    ? await new SyncEngine({ storage })
        .findAccountSuccessors(connection.id)
        .then((found) => found.map(successorOf))
        .catch((error: unknown) => {
          if (error instanceof RangeError) return [];
          throw error;
        })
    : [];
  return { connection, accounts, successors };
}

function connectionLine(c: ConnectionState): string {
  const reason = c.statusReason ? ` (${c.statusReason})` : '';
  if (c.status === 'reauth_required') return `needs a new API key${reason}`;
  if (c.status === 'paused') return `rate limited, paused until ${formatTime(c.pausedUntil)}${reason}`;
  return 'active';
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function render(status: ConnectionStatus): string {
  const c = status.connection;
  const lines = [
    `connection ${c.id}: ${connectionLine(c)}`,
    `  last successful sync: ${c.lastSuccessAt ? `${formatTime(c.lastSuccessAt)} (${ago(c.lastSuccessAt)})` : 'never'}; last run: ${formatTime(c.lastRunAt)}`,
  ];
  if (status.accounts.length === 0) {
    lines.push('  no accounts yet');
    return lines.join('\n');
  }
  const t = table(
    [
      'account',
      'state',
      'balance',
      'balance since',
      'transactions',
      'balance check',
      'last synced',
      'last issue',
    ],
    [4],
  );
  for (const { account, sync, transactions } of status.accounts) {
    t.push([
      truncate(`${account.id} ${account.name}`, 36),
      account.state === 'inactive' ? `inactive (${account.upstreamStatus ?? '?'})` : account.state,
      formatBalance(account.balance),
      formatTime(account.balance?.fetchedAt),
      transactions,
      formatCheck(account.reconciliation),
      ago(sync?.lastSyncedAt),
      truncate(sync?.lastError ?? '', 60),
    ]);
  }
  lines.push(t.toString());
  for (const s of status.successors)
    lines.push(
      `  account ${s.successor} continues ${s.previous} (the bank linked again): ${s.shared} of ${s.previousRows} ` +
        `posted rows from ${s.from} to ${s.to} are in both, so that history is stored twice`,
    );
  return lines.join('\n');
}

export async function statusCommand(flags: StatusFlags): Promise<ExitCodeValue> {
  const target = resolveDatabase(flags);
  const storage = await openStorage(target, 'read');
  try {
    const connections =
      flags.connection === undefined
        ? await storage.listConnections()
        : [await resolveConnection(storage, flags.connection)];
    const statuses = [];
    for (const connection of connections) statuses.push(await collect(storage, connection));
    const lastSeq = await storage.lastSeq();
    const database = describeDatabase(target);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ database, lastSeq, connections: statuses }, null, 2)}\n`);
      return ExitCode.ok;
    }
    const out = [`database: ${database}`, `change feed: up to seq ${lastSeq}`];
    if (statuses.length === 0) out.push('no connections yet: run `finsync sync`');
    for (const status of statuses) out.push('', render(status));
    process.stdout.write(`${out.join('\n')}\n`);
    return ExitCode.ok;
  } finally {
    await storage.close();
  }
}
