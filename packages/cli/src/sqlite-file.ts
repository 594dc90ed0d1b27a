/**
 * The SQLite file `sync` and `watch` write, made ready before anything is asked of the provider: made
 * with mode 0600 (it holds bank data), followed where a link points, and refused (exit 2, naming it)
 * where this user cannot write it or its directory.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { CliError } from './exit-codes.js';

/** Makes `file` (and its directory) if need be, and checks that SQLite can write it; throws a `CliError`. */
export function prepareSqliteFile(file: string): void {
  if (existsSync(file) && statSync(file).isDirectory()) throw new CliError(`${file} is a directory`);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CliError(
      `cannot make the directory of ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): is a part of the path a file?`,
    );
  }
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw new CliError(`cannot create ${file} (${code ?? 'error'})`);
    // A link to a file not made yet: `wx` never follows a link, so the file is made where it points.
    if (lstatSync(file).isSymbolicLink() && !existsSync(file)) {
      try {
        closeSync(openSync(file, 'a', 0o600));
      } catch (made) {
        const why = (made as NodeJS.ErrnoException).code ?? 'error';
        const pointsTo = why === 'ELOOP' ? undefined : lastLinkTarget(file);
        throw new CliError(
          pointsTo === undefined
            ? `${file} cannot be written: its links go round in a loop (${why})`
            : `${file} cannot be written: it links to ${pointsTo}, which cannot be made (${why}: is ${dirname(pointsTo)} there, and writable?)`,
        );
      }
    }
  }
  // Where SQLite writes: a symlink's target, and the WAL files beside it.
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new CliError(`${file} cannot be written: it is a link to no file (${code})`);
  }
  refuseUnwritable(real, file);
}

/**
 * Where a link's `target` leads from the directory `from` (a real path), as the kernel walks it: each
 * part that exists is taken at its real path, so a `..` after a linked directory is that directory's
 * parent, not the text before it; a part that is itself a dangling link is followed in turn; a part
 * missing before the last is where the walk stops (the folder that is not there). `hops` bounds the
 * links followed; undefined when they loop.
 */
function walked(from: string, target: string, hops = { left: 40 }): string | undefined {
  let current = isAbsolute(target) ? '/' : from;
  const parts = target.split('/').filter((part) => part !== '' && part !== '.');
  for (const [index, part] of parts.entries()) {
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    try {
      current = realpathSync(next);
      continue;
    } catch {
      // Not there, or a link to nowhere: said below.
    }
    let link: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      link = undefined;
    }
    if (link !== undefined) {
      if (--hops.left < 0) return undefined;
      const through = walked(current, link, hops);
      if (through === undefined) return undefined;
      current = through;
      continue;
    }
    // Missing: the last part is the file to be made; before it, the walk stops at the folder that is
    // not there, and the rest is kept as written (no `..` in it can be read without that folder).
    const rest = parts.slice(index + 1);
    return rest.length === 0 ? next : `${next}/${rest.join('/')}`;
  }
  return current;
}

/** Where a chain of links ends (the first path that is no link), or undefined for a loop. */
function lastLinkTarget(link: string): string | undefined {
  let path = link;
  for (let hop = 0; hop < 40; hop++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      return path; // nothing there: where the file would be made
    }
    if (!isLink) return path;
    let directory: string;
    try {
      directory = realpathSync(dirname(path));
    } catch {
      return undefined; // a directory on the way loops
    }
    const next = walked(directory, readlinkSync(path));
    if (next === undefined) return undefined;
    path = next;
  }
  return undefined;
}

/**
 * A SQLite file (and its directory, where the WAL files go) this user cannot write. SQLite opens such a
 * file read-only without a word, and every write then failed: a sync reported each account's failure
 * as one the next sync retries (exit 5).
 */
function refuseUnwritable(file: string, named: string): void {
  for (const [path, what] of [
    [file, 'the database file'],
    [dirname(file), 'its directory (finsync.db-wal and -shm go there)'],
  ] as const) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const where = file === named ? named : `${named} (${file})`;
      throw new CliError(`${where} cannot be written: ${what} is read-only for this user (${code})`);
    }
  }
}
