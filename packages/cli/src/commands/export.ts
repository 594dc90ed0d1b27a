/**
 * `finsync export`: the mirrored transactions as CSV or JSON, amounts as the exact decimal strings
 * the provider sent (never through a float), ordered by account, then date.
 */
import { constants, createWriteStream } from 'node:fs';
import { access, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { MirrorTransaction } from '@finsync/sync';
import { CliError, ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { LineWriter, OutputClosed, note } from '../io.js';
import { openStorage, resolveConnection, resolveDatabase, type DatabaseFlags } from '../options.js';

export interface ExportFlags extends DatabaseFlags {
  connection?: string;
  format: 'csv' | 'json';
  from?: string;
  to?: string;
  account?: string[];
  output?: string;
}

export const CSV_COLUMNS = [
  'account_id',
  'date',
  'amount',
  'currency',
  'merchant',
  'description',
  'pending',
  'id',
] as const;

type Row = Record<(typeof CSV_COLUMNS)[number], string | boolean | null>;

function row(t: MirrorTransaction): Row {
  return {
    account_id: inert(t.accountId),
    date: t.date,
    amount: t.amount,
    currency: t.currency,
    merchant: inert(t.merchant),
    description: inert(t.description),
    pending: t.isPending,
    // Pending rows often have no provider id yet: the column is empty then.
    id: inert(t.providerId),
  };
}

/**
 * Text from the bank that a spreadsheet would run as a formula (a transfer reference reading
 * `=HYPERLINK(…)`), with a leading apostrophe, as OWASP advises for CSV: a spreadsheet shows it as
 * text. Only the text columns: an amount's minus sign is a number's. JSON keeps every value as sent.
 */
export function inert<T extends string | null>(text: T): T {
  return (text !== null && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text) as T;
}

/** RFC 4180: quote a field holding a comma, a quote or a line break, doubling its quotes. */
export function csvField(value: string | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// RFC 4180 ends records with CRLF; spreadsheet programs and CSV libraries read either.
const csvLine = (fields: Array<string | boolean | null>) => `${fields.map(csvField).join(',')}\r\n`;

export async function exportCommand(flags: ExportFlags): Promise<ExitCodeValue> {
  if (flags.from && flags.to && flags.from > flags.to)
    throw new CliError(`--from ${flags.from} is after --to ${flags.to}`);
  const storage = await openStorage(resolveDatabase(flags), 'read');
  const file = flags.output === undefined ? undefined : resolve(flags.output);
  // Written beside the target and renamed at the end: a failed export leaves no half file behind.
  const partial = file && `${file}.partial`;
  let written = false;
  let out: LineWriter | undefined;
  // Ctrl-C stops between two rows: the half-written file is removed (below), and the exit code says so.
  const interrupted = new AbortController();
  const stop = () => interrupted.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const connection = await resolveConnection(storage, flags.connection);
    const accounts = await storage.listAccounts(connection.id);
    const wanted = flags.account ?? accounts.map((a) => a.id);
    for (const id of wanted)
      if (!accounts.some((a) => a.id === id))
        throw new CliError(
          `no account ${JSON.stringify(id)} in connection ${connection.id} (known: ${accounts.map((a) => a.id).join(', ')})`,
        );

    // Bank data: the file is for its owner only (0600), like the database.
    if (file) await writableDirectoryOf(file);
    out = new LineWriter(partial ? createWriteStream(partial, { mode: 0o600 }) : process.stdout);
    let count = 0;
    if (flags.format === 'csv') await out.write(csvLine([...CSV_COLUMNS]));
    else await out.write('[');
    const query = { ...(flags.from ? { from: flags.from } : {}), ...(flags.to ? { to: flags.to } : {}) };
    for (const accountId of wanted) {
      // One account's rows in the range at a time, in date order (the storage's index serves it).
      for (const t of await storage.findTransactions(connection.id, accountId, query)) {
        if (interrupted.signal.aborted) return ExitCode.interrupted;
        const r = row(t);
        if (flags.format === 'csv') await out.write(csvLine(CSV_COLUMNS.map((c) => r[c])));
        else await out.write(`${count === 0 ? '' : ','}\n  ${JSON.stringify(r)}`);
        count += 1;
      }
    }
    if (flags.format === 'json') await out.write(count === 0 ? ']\n' : '\n]\n');
    await out.end();
    if (file && partial) {
      await rename(partial, file);
      written = true;
      note(`exported ${count} transactions to ${file}`);
    }
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof OutputClosed) return ExitCode.ok;
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (partial && !written) {
      out?.destroy();
      await rm(partial, { force: true });
    }
    await storage.close();
  }
}

/** A usage error (exit 2) when `--output` cannot be written where it points: no directory there, say. */
async function writableDirectoryOf(file: string): Promise<void> {
  // The export is written beside it and renamed over it at the end: a directory would only be
  // refused then, after the whole export, as an unexpected error.
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory())
    throw new CliError(
      `--output: ${file} is a directory; name the file to write, such as ${join(file, 'export.csv')}`,
    );
  const directory = dirname(file);
  try {
    await access(directory, constants.W_OK);
  } catch (error) {
    throw new CliError(
      `--output: cannot write in ${directory} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
