#!/usr/bin/env node
// Versions in step: every publishable workspace package (not `private`) has the same version, every
// @finsync/* dependency of any workspace package names a workspace package and its range accepts that
// package's version, no publishable package depends on a private one, and every publishable package
// has a CHANGELOG.md with an entry for its version. A private package may only be a devDependency of
// a publishable one: either its build bundles it, or only its tests use it (nothing in its src/
// imports it). Plain Node, no dependencies.
//
//   node scripts/check-versions.mjs
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCOPE = '@finsync/';
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];

/** The workspace packages named by the root's `workspaces` (directories, or `dir/*` globs). */
export function workspacePackages(rootDir = root) {
  const manifest = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8'));
  const dirs = [];
  for (const pattern of manifest.workspaces ?? []) {
    if (pattern.endsWith('/*')) {
      const parent = join(rootDir, pattern.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true }).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        if (entry.isDirectory()) dirs.push(join(parent, entry.name));
      }
    } else if (!/[*?[{]/.test(pattern)) {
      dirs.push(join(rootDir, pattern));
    } else {
      throw new Error(`workspace pattern ${pattern} is not one this script understands (dir or dir/*)`);
    }
  }
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({
      dir,
      path: relative(rootDir, dir),
      manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
    }));
}

// --- A small semver: enough for the ranges npm writes (^, ~, x-ranges, comparators, ||, hyphens). ---

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseVersion(text) {
  const m = VERSION.exec(String(text).trim());
  if (!m) return undefined;
  return { major: +m[1], minor: +m[2], patch: +m[3], pre: m[4] ? m[4].split('.') : [] };
}

function comparePre(a, b) {
  if (a.length === 0 || b.length === 0) return b.length - a.length; // a release sorts after its prereleases
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] === undefined) return -1;
    if (b[i] === undefined) return 1;
    const an = /^\d+$/.test(a[i]);
    const bn = /^\d+$/.test(b[i]);
    if (an && bn && +a[i] !== +b[i]) return +a[i] - +b[i];
    if (an !== bn) return an ? -1 : 1;
    if (!an && a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

function compare(a, b) {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}

/** `1`, `1.2`, `1.x`, `1.2.3-beta.1` → the parts given (x/X/* and missing parts are undefined). */
function parsePartial(text) {
  const m =
    /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(
      text,
    );
  if (!m) return undefined;
  const part = (s) => (s === undefined || /^[xX*]$/.test(s) ? undefined : +s);
  return { major: part(m[1]), minor: part(m[2]), patch: part(m[3]), pre: m[4] ? m[4].split('.') : [] };
}

const v = (major, minor, patch, pre = []) => ({ major, minor, patch, pre });

/** One space-separated comparator set → a list of [operator, version] pairs (all must hold). */
function comparators(set) {
  const out = [];
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(set);
  if (hyphen) {
    const lo = parsePartial(hyphen[1]);
    const hi = parsePartial(hyphen[2]);
    if (!lo || !hi) throw new Error(`cannot read range "${set}"`);
    out.push(['>=', v(lo.major ?? 0, lo.minor ?? 0, lo.patch ?? 0, lo.pre)]);
    if (hi.major === undefined) return out;
    if (hi.minor === undefined) out.push(['<', v(hi.major + 1, 0, 0, ['0'])]);
    else if (hi.patch === undefined) out.push(['<', v(hi.major, hi.minor + 1, 0, ['0'])]);
    else out.push(['<=', v(hi.major, hi.minor, hi.patch, hi.pre)]);
    return out;
  }
  for (const token of set.split(/\s+/).filter(Boolean)) {
    const m = /^(\^|~>?|>=|<=|>|<|=)?\s*(.*)$/.exec(token);
    const op = m[1] ?? '';
    const p = parsePartial(m[2]);
    if (!p) throw new Error(`cannot read range "${set}"`);
    const { major, minor, patch, pre } = p;
    if (major === undefined) {
      if (op === '<' || op === '>') out.push(['<', v(0, 0, 0, ['0'])]); // matches nothing
      continue; // *, x, >=*: anything
    }
    if (op === '^') {
      const lo = v(major, minor ?? 0, patch ?? 0, pre);
      let hi;
      if (major > 0 || minor === undefined) hi = v(major + 1, 0, 0, ['0']);
      else if (minor > 0 || patch === undefined) hi = v(0, minor + 1, 0, ['0']);
      else hi = v(0, 0, patch + 1, ['0']);
      out.push(['>=', lo], ['<', hi]);
    } else if (op === '~' || op === '~>') {
      out.push(['>=', v(major, minor ?? 0, patch ?? 0, pre)]);
      out.push(['<', minor === undefined ? v(major + 1, 0, 0, ['0']) : v(major, minor + 1, 0, ['0'])]);
    } else if (minor === undefined || patch === undefined) {
      // A partial version: 1.2 means 1.2.x.
      const lo = v(major, minor ?? 0, 0);
      const hi = minor === undefined ? v(major + 1, 0, 0, ['0']) : v(major, minor + 1, 0, ['0']);
      if (op === '' || op === '=') out.push(['>=', lo], ['<', hi]);
      else if (op === '>=') out.push(['>=', lo]);
      else if (op === '<') out.push(['<', v(lo.major, lo.minor, 0, ['0'])]);
      else if (op === '>') out.push(['>=', hi]);
      else if (op === '<=') out.push(['<', hi]);
    } else {
      out.push([op === '' ? '=' : op, v(major, minor, patch, pre)]);
    }
  }
  return out;
}

/** Does `range` accept `version`, the way npm decides it (prereleases only on their own tuple)? */
export function satisfies(version, range) {
  const ver = typeof version === 'string' ? parseVersion(version) : version;
  if (!ver) throw new Error(`"${version}" is not a semver version`);
  const trimmed = String(range).trim();
  if (/^(workspace|file|link|npm|git|git\+\w+|https?):/.test(trimmed)) {
    throw new Error(`"${range}" is not a semver range (npm cannot publish it)`);
  }
  return trimmed.split('||').some((set) => {
    const list = comparators(set.trim() === '' ? '*' : set.trim());
    const holds = list.every(([op, bound]) => {
      const c = compare(ver, bound);
      return op === '=' ? c === 0 : op === '>=' ? c >= 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c < 0;
    });
    if (!holds) return false;
    if (ver.pre.length === 0) return true;
    // A prerelease only satisfies a set that names a prerelease of the same major.minor.patch.
    return list.some(
      ([, b]) => b.pre.length > 0 && b.major === ver.major && b.minor === ver.minor && b.patch === ver.patch,
    );
  });
}

// --- The check. ---

/**
 * Does the package in `dir` bundle `name` into its build? A text check of its tsup.config.ts (plus
 * packages/internals/tsup-bundle.ts, the shared bundling options, when the config uses them): it must
 * set `noExternal` and name the package, as a string or a pattern. pack-smoke checks the built files.
 */
export function bundlesPackage(dir, name, rootDir = root) {
  const config = join(dir, 'tsup.config.ts');
  if (!existsSync(config)) return false;
  let text = readFileSync(config, 'utf8');
  const shared = join(rootDir, 'packages', 'internals', 'tsup-bundle.ts');
  if (text.includes('internals/tsup-bundle') && existsSync(shared)) text += readFileSync(shared, 'utf8');
  const asPattern = name.replaceAll('/', '\\/'); // how a RegExp literal spells it: @finsync\/internals
  return /\bnoExternal\b/.test(text) && (text.includes(`'${name}'`) || text.includes(asPattern));
}

/**
 * The files of the package in `dir` that import `name` from its source: `src/`, test files left out
 * (they are never built). A text check for the quoted name, or a subpath of it; a mention in a comment
 * counts too, which errs on the safe side.
 */
export function sourceFilesImporting(dir, name) {
  const src = join(dir, 'src');
  if (!existsSync(src)) return [];
  const quoted = new RegExp(`['"]${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^'"]*)?['"]`);
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.[cm]?[jt]sx?$/.test(entry.name) && !/\.test\./.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .filter((file) => quoted.test(readFileSync(file, 'utf8')))
    .map((file) => relative(dir, file));
}

export function checkVersions(rootDir = root) {
  const problems = [];
  const notes = [];
  const packages = workspacePackages(rootDir);
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const publishable = packages.filter((p) => p.manifest.private !== true);
  if (publishable.length === 0) problems.push('no publishable workspace package found');

  const versions = new Map();
  for (const { manifest, path } of publishable) {
    if (!parseVersion(manifest.version ?? '')) {
      problems.push(`${path}: version ${JSON.stringify(manifest.version)} is not semver`);
      continue;
    }
    versions.set(manifest.name, manifest.version);
  }
  const distinct = [...new Set(versions.values())];
  if (distinct.length > 1) {
    problems.push(
      `publishable packages are not in step: ${[...versions].map(([n, ver]) => `${n}@${ver}`).join(', ')}`,
    );
  }

  for (const { manifest, path, dir } of packages) {
    const isPublishable = manifest.private !== true;
    for (const field of DEPENDENCY_FIELDS) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (!dep.startsWith(SCOPE)) continue;
        const target = byName.get(dep);
        const where = `${path}: ${field}["${dep}"] = "${range}"`;
        if (!target) {
          problems.push(`${where} names no workspace package`);
          continue;
        }
        if (isPublishable && target.manifest.private === true) {
          // A private package never reaches the registry, so a user's install could not fetch it. As a
          // devDependency it is fine when only the tests use it (@finsync/test-utils: nothing in src/
          // imports it, so nothing built does), or when the build bundles it (see bundlesPackage): the
          // published files then carry its code and types and never import it.
          if (field !== 'devDependencies') {
            problems.push(`${where}: a publishable package cannot depend on the private ${dep}`);
            continue;
          }
          const importers = sourceFilesImporting(dir, dep);
          if (importers.length > 0 && !bundlesPackage(dir, dep)) {
            problems.push(
              `${where}: the private ${dep} is imported from ${importers.join(', ')}, so it must be bundled (named in noExternal of the package's tsup.config.ts)`,
            );
            continue;
          }
        }
        try {
          if (!satisfies(target.manifest.version, range)) {
            problems.push(`${where} does not accept the workspace's ${dep}@${target.manifest.version}`);
          }
        } catch (error) {
          problems.push(`${where}: ${error.message}`);
        }
      }
    }
  }

  for (const { manifest, path, dir } of publishable) {
    const changelog = join(dir, 'CHANGELOG.md');
    if (!existsSync(changelog)) {
      problems.push(`${path}: no CHANGELOG.md`);
      continue;
    }
    const text = readFileSync(changelog, 'utf8');
    if (!text.startsWith(`# ${manifest.name}\n`)) {
      problems.push(
        `${path}/CHANGELOG.md: the first line must be "# ${manifest.name}" (changesets writes below it)`,
      );
    }
    const escaped = String(manifest.version).replace(/[.+]/g, '\\$&');
    if (!new RegExp(`^## ${escaped}\\s*$`, 'm').test(text)) {
      problems.push(`${path}/CHANGELOG.md: no "## ${manifest.version}" entry`);
    }
  }

  notes.push(
    `${publishable.length} publishable packages at ${distinct.join(', ') || '—'}: ` +
      publishable.map((p) => p.manifest.name).join(', '),
  );
  return { problems, notes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { problems, notes } = checkVersions();
  for (const note of notes) console.log(note);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`✗ ${problem}`);
    process.exit(1);
  }
  console.log('✓ versions in step; every @finsync/* range accepts the workspace version; changelogs present');
}
