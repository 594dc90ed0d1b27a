/**
 * The main path, in order, on one SQLite file: sync from the sandbox, sync again, then read the
 * result back with status, feed and export and compare it with the database itself.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteStorage } from '@finsync/sqlite';
import type { FeedEntry, MirrorAccount, MirrorTransaction } from '@finsync/sync';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvField } from '../src/commands/export.js';
import { parseCsv, runCli } from './helpers.js';

const SANDBOX = ['--sandbox', '--sandbox-days', '30'];
const ACCOUNTS = ['4711', '4712', '4713', '5001', '5002', '6001', '7001', '8001'];

describe('finsync on a SQLite file, against the sandbox', () => {
  let dir: string;
  let db: string;
  let storage: SqliteStorage;

  beforeAll(async () => {
    dir = makeTempDir('cli');
    db = join(dir, 'finsync.db');
  });
  afterAll(async () => {
    await storage?.close();
    removeTempDir(dir);
  });

  /** The database as the CLI left it, opened read-only next to it. */
  async function open(): Promise<SqliteStorage> {
    storage ??= new SqliteStorage({ filename: db, readonly: true });
    return storage;
  }

  it('syncs into ./finsync.db by default, says where, and prints a summary table', async () => {
    const result = await runCli(['sync', ...SANDBOX, '--no-progress'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('connection sandbox: success');
    expect(result.stdout).toContain(`database: ${db}`);
    expect(result.stdout).toMatch(
      /account .*fetched .*added .*modified .*removed .*balance .*balance check .*issues/,
    );
    expect(result.stdout).toMatch(/4711 Current Account/);
    expect(result.stdout).toMatch(/│ total/);
    expect(result.stderr).toContain(`into ${db}`);
    // Bank data: the file is for its owner only.
    expect(statSync(db).mode & 0o077).toBe(0);
  });

  it('adds nothing on a second sync the same day, with nothing new to check the balances against', async () => {
    const result = await runCli(['sync', ...SANDBOX, '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      outcome: string;
      exitCode: number;
      database: string;
      accounts: Array<{
        fetched: number;
        added: number;
        modified: number;
        removed: number;
        reconciliation: { status: string };
      }>;
    };
    expect(report).toMatchObject({ outcome: 'success', exitCode: 0, database: db });
    expect(report.accounts.length).toBeGreaterThan(0);
    for (const account of report.accounts) {
      expect(account).toMatchObject({ added: 0, modified: 0, removed: 0 });
      // The rows add up because the first sync derived the opening balance from them: not a check.
      expect(account.reconciliation.status).toBe('unchecked');
    }
    expect(report.accounts.reduce((n, a) => n + a.fetched, 0)).toBeGreaterThan(0);
    // Not a terminal: plain progress lines on stderr, one per account.
    expect(result.stderr).toMatch(/^account 4711 \(Current Account\): \d+ rows, \+0 ~0 -0$/m);
  });

  it('status lists the connection, its accounts, balances and freshness', async () => {
    const result = await runCli(['status'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`database: ${db}`);
    expect(result.stdout).toContain('connection sandbox: active');
    expect(result.stdout).toMatch(/last successful sync: .*just now/);
    for (const id of ACCOUNTS) expect(result.stdout).toContain(`${id} `);
    expect(result.stdout).toContain('inactive (DISCONNECTED)');
    expect(result.stdout).toContain('unchecked');

    const json = await runCli(['status', '--json', '--connection', 'sandbox'], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout) as {
      connections: Array<{ accounts: Array<{ account: MirrorAccount; transactions: number }> }>;
    };
    const storage = await open();
    const accounts = status.connections[0]!.accounts;
    expect(accounts.map((a) => a.account.id).sort()).toEqual(ACCOUNTS);
    for (const a of accounts)
      expect(a.transactions).toBe(await storage.countTransactions('sandbox', a.account.id));
  });

  it('feed --after 0 prints NDJSON that replays into the mirror', async () => {
    const result = await runCli(['feed', '--after', '0'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const entries = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as FeedEntry);
    const storage = await open();
    expect(entries.length).toBe(await storage.lastSeq());
    entries.forEach((entry, i) => i > 0 && expect(entry.seq).toBeGreaterThan(entries[i - 1]!.seq));

    const transactions = new Map<string, MirrorTransaction>();
    const accounts = new Map<string, MirrorAccount>();
    for (const e of entries) {
      const id = `${e.accountId}/${e.key}`;
      if (e.entity === 'transaction') {
        if (e.op === 'removed') transactions.delete(id);
        else transactions.set(id, e.record!);
      } else if (e.entity === 'account' && e.record) accounts.set(e.accountId, e.record);
    }
    const mirrored: MirrorTransaction[] = [];
    for await (const t of storage.scanTransactions('sandbox')) mirrored.push(t);
    const byKey = (a: MirrorTransaction, b: MirrorTransaction) =>
      `${a.accountId}/${a.key}`.localeCompare(`${b.accountId}/${b.key}`);
    expect([...transactions.values()].sort(byKey)).toEqual(mirrored.sort(byKey));
    expect([...accounts.values()].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      (await storage.listAccounts('sandbox')).sort((a, b) => a.id.localeCompare(b.id)),
    );

    // A saved cursor: only what came after it.
    const middle = entries[Math.floor(entries.length / 2)]!.seq;
    const rest = await runCli(['feed', '--after', String(middle), '--connection', 'sandbox'], { cwd: dir });
    const seqs = rest.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as FeedEntry).seq);
    expect(seqs).toEqual(entries.filter((e) => e.seq > middle).map((e) => e.seq));

    // The last entry's cursor reads nothing, and exits 0; one past it is from another database.
    const last = entries.at(-1)!.seq;
    const upToDate = await runCli(['feed', '--after', String(last)], { cwd: dir });
    expect(upToDate).toMatchObject({ code: 0, stdout: '' });
    const elsewhere = await runCli(['feed', '--after', String(last + 1000)], { cwd: dir });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toContain(`--after ${last + 1000} is past the feed's last entry (${last})`);
  });

  it('export --format csv has one row per transaction with the exact amounts', async () => {
    const result = await runCli(['export', '--format', 'csv'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\r\n$/);
    const [header, ...rows] = parseCsv(result.stdout);
    expect(header).toEqual([...CSV_COLUMNS]);
    const storage = await open();
    expect(rows.length).toBe(await storage.countTransactions('sandbox'));
    const expected: string[][] = [];
    for (const account of await storage.listAccounts('sandbox'))
      for (const t of await storage.findTransactions('sandbox', account.id))
        expected.push([
          t.accountId,
          t.date,
          t.amount,
          t.currency ?? '',
          t.merchant ?? '',
          t.description ?? '',
          String(t.isPending),
          t.providerId ?? '',
        ]);
    expect(rows).toEqual(expected);
    // Decimal strings as stored, e.g. JPY without decimals and no float noise anywhere.
    for (const row of rows) expect(row[2]).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('export --format json filters by date and account and writes a file', async () => {
    const out = join(dir, 'out.json');
    const args = ['export', '--format', 'json', '--account', '4711', '--account', '7001'];
    const all = JSON.parse((await runCli(args, { cwd: dir })).stdout) as Array<{
      date: string;
      account_id: string;
    }>;
    const dates = [...new Set(all.map((r) => r.date))].sort();
    const from = dates[5]!;
    const to = dates[10]!;
    const result = await runCli([...args, '--from', from, '--to', to, '--output', out], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const rows = JSON.parse(await readFile(out, 'utf8')) as Array<{
      date: string;
      account_id: string;
      amount: string;
    }>;
    expect(rows).toEqual(all.filter((r) => r.date >= from && r.date <= to));
    expect(new Set(rows.map((r) => r.account_id))).toEqual(new Set(['4711', '7001']));
    expect(typeof rows[0]!.amount).toBe('string');
    expect(result.stderr).toContain(`exported ${rows.length} transactions to ${out}`);
    expect(statSync(out).mode & 0o077).toBe(0);
  });
});

describe('CSV fields (RFC 4180)', () => {
  it('quotes commas, quotes and line breaks, and nothing else', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('-12.30')).toBe('-12.30');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(false)).toBe('false');
    expect(parseCsv(`x,${csvField('a,"b"\r\nc')}\r\n`)).toEqual([['x', 'a,"b"\r\nc']]);
  });
});
