/**
 * Runs the CLI the way a person does: a child process on plain Node (the build `global-setup.ts`
 * makes from the sources), its stdout and stderr apart, its exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
  /** Run as this user (the tests run as root on CI, to whom every file is writable). */
  uid?: number;
  gid?: number;
}

/**
 * A fixed-offset zone where it is about noon now, for the CLI and for this process: their calendar is
 * local, and a test crossing local midnight between two runs would see a new day (a second sync would
 * read a day the first never asked for).
 */
function noonZone(now: Date): string {
  const offset = 12 - now.getUTCHours();
  if (offset === 0) return 'UTC';
  // POSIX names: Etc/GMT-5 is five hours ahead of UTC.
  return offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}
process.env.TZ = noonZone(new Date());

/** The parent's environment minus anything that would change what the CLI does. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(LUNCHFLOW_|FINSYNC_|NODE_OPTIONS$|VITEST)/.test(name)) env[name] = value;
  return { ...env, ...extra };
}

export function startCli(
  args: string[],
  options: CliOptions,
): ChildProcess & { output: CliResult; done: Promise<CliResult> } {
  const child = spawn(process.execPath, ['--enable-source-maps', inject('cliMain'), ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
  });
  const output: CliResult = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  child.stdin.end(options.input ?? '');
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(Object.assign(output, { code, signal })));
  });
  return Object.assign(child, { output, done });
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Waits until the child's stdout or stderr matches, or fails after `timeoutMs`. */
export async function waitForOutput(
  child: ReturnType<typeof startCli>,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<void> {
  const started = Date.now();
  while (!pattern.test(child.output.stdout) && !pattern.test(child.output.stderr)) {
    if (child.exitCode !== null || Date.now() - started > timeoutMs)
      throw new Error(`no ${pattern} in output:\n${child.output.stdout}\n${child.output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A small RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF records. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
