#!/usr/bin/env node
// Every publishable package installs from its tarball and runs, the way a user would get it before
// (and after) it is on the registry: `npm pack` of each package, one fresh project outside the
// workspace, `npm install` of all the tarballs together (plus msw, the optional peer, and @types/node),
// a type check of TypeScript code using every entry point (the workspace's own tsc, as ESM and as
// CommonJS), then an ESM and a CommonJS program that use them, and the `finsync` bin. Run it after
// `npm run build`.
//
//   node scripts/pack-smoke.mjs [--keep] [--full-install]
//
// --keep          leave the temporary project in place (it is kept anyway when something fails)
// --full-install  run every install script in the fresh project, as a user's `npm install` does.
//                 By default install scripts are skipped and better-sqlite3's native binary is
//                 copied from the workspace's own build when the versions match (building it from
//                 source takes over a minute here); without a matching build it is built.
//
// Plain Node ESM, no dependencies. Exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspacePackages } from './check-versions.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));
const keep = args.has('--keep');
const fullInstall = args.has('--full-install');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();

/** Packages whose build may be missing (being written); skipped with a note instead of failing. */
const MAY_BE_UNBUILT = new Set([]);
/** Entry points that need an optional peer the fresh project does not install. */
const NEEDS_PEER = new Map([['@finsync/sync/testing', 'vitest']]);
/** Entry points offered as ESM only (no `require` condition): their types are checked from ESM alone. */
const ESM_ONLY = new Set(['@finsync/sync/testing']);
/** Entry points whose types need the DOM lib (msw's own types do); type-checked in a program with it. */
const NEEDS_DOM_LIB = new Set(['@finsync/provider/msw', '@finsync/service/msw']);

const checked = [];
const skipped = [];
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

class SmokeError extends Error {}
function fail(message) {
  throw new SmokeError(message);
}

// Variables npm sets for `npm run` at the root would make the child npm act on the workspace.
const childEnv = { ...process.env };
for (const key of Object.keys(childEnv)) {
  if (/^npm_config_(workspaces?|include_workspace_root)$/i.test(key)) delete childEnv[key];
}

function run(command, commandArgs, { cwd, timeoutMs = 60_000, env = childEnv } = {}) {
  const result = spawnSync(command, commandArgs, {
    cwd,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === 'win32',
  });
  const shown = `${command} ${commandArgs.join(' ')}`;
  if (result.error) fail(`${shown}: ${result.error.message}`);
  if (result.status !== 0) {
    fail(
      `${shown} exited with ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`.trimEnd(),
    );
  }
  return result.stdout;
}

/** Like run(), without blocking (the type checks run side by side); `check` gets what it printed. */
function runAsync(command, commandArgs, { cwd, timeoutMs = 60_000, env = childEnv, check } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, commandArgs, {
      cwd,
      env,
      timeout: timeoutMs,
      shell: process.platform === 'win32',
    });
    const shown = `${command} ${commandArgs.join(' ')}`;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => reject(new SmokeError(`${shown}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise(stdout);
      else {
        const shownOutput = check ? check(stdout) : stdout;
        reject(new SmokeError(`${shown} exited with ${code ?? signal}\n${shownOutput}\n${stderr}`.trimEnd()));
      }
    });
  });
}

function step(title) {
  console.log(`\n▸ ${title}`);
}

/** Every path a manifest points at: exports (all conditions), main/module/types, bin. */
function manifestTargets(manifest) {
  const targets = new Set();
  const walk = (value) => {
    if (typeof value === 'string') targets.add(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  for (const field of ['main', 'module', 'types']) if (manifest[field]) targets.add(manifest[field]);
  if (typeof manifest.bin === 'string') targets.add(manifest.bin);
  else if (manifest.bin) Object.values(manifest.bin).forEach((b) => targets.add(b));
  return [...targets].map((t) => t.replace(/^\.\//, ''));
}

/** The built files a package needs (everything its manifest points at, sources excluded). */
function builtTargets(manifest) {
  return manifestTargets(manifest).filter((t) => !t.startsWith('src/'));
}

/** Every file below `dir` (none if it does not exist). */
function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

let project;
async function main() {
  try {
    // --- 1. What to pack. ---
    const publishable = workspacePackages(root).filter((p) => p.manifest.private !== true);
    if (publishable.length === 0) fail('no publishable workspace package');
    const toPack = [];
    for (const pkg of publishable) {
      const missing = builtTargets(pkg.manifest).filter((t) => !existsSync(join(pkg.dir, t)));
      if (missing.length === 0) toPack.push(pkg);
      else if (MAY_BE_UNBUILT.has(pkg.manifest.name)) {
        skipped.push(`${pkg.manifest.name}: not built (${missing.join(', ')} missing), so not packed or run`);
      } else {
        fail(`${pkg.manifest.name} is not built (${missing.join(', ')} missing): run npm run build first`);
      }
    }
    project = mkdtempSync(join(tmpdir(), 'finsync-pack-smoke-'));
    const tarballDir = join(project, 'tarballs');
    mkdirSync(tarballDir);

    // --- 2. npm pack, and what is in each tarball. ---
    step(`npm pack: ${toPack.map((p) => p.manifest.name).join(', ')}`);
    let since = Date.now();
    const packed = JSON.parse(
      run(
        npm,
        [
          'pack',
          ...toPack.flatMap((p) => ['--workspace', p.manifest.name]),
          '--pack-destination',
          tarballDir,
          '--json',
        ],
        { cwd: root },
      ),
    );
    const tarballs = [];
    for (const pkg of [...toPack]) {
      const entry = packed.find((e) => e.name === pkg.manifest.name);
      if (!entry) fail(`npm pack wrote no tarball for ${pkg.manifest.name}`);
      const files = new Set(entry.files.map((f) => f.path));
      const problems = [];
      const missing = manifestTargets(pkg.manifest).filter((t) => !files.has(t));
      if (missing.length > 0) problems.push(`lacks what package.json points at: ${missing.join(', ')}`);
      if (!files.has('README.md')) problems.push('has no README.md');
      const tests = [...files].filter((f) => /\.test\.[cm]?[jt]s$/.test(f));
      if (tests.length > 0) problems.push(`ships tests: ${tests.join(', ')}`);
      // A source named by an absolute path is the build machine's: missing on a user's, and a leak.
      const absolute = [...files]
        .filter((f) => f.endsWith('.map'))
        .filter((f) => JSON.parse(readFileSync(join(pkg.dir, f), 'utf8')).sources.some((s) => isAbsolute(s)));
      if (absolute.length > 0)
        problems.push(`ships source maps naming absolute paths: ${absolute.join(', ')}`);
      if (problems.length > 0 && MAY_BE_UNBUILT.has(pkg.manifest.name)) {
        skipped.push(
          `${pkg.manifest.name}: its tarball ${problems.join('; ')}, so it is not installed or run`,
        );
        toPack.splice(toPack.indexOf(pkg), 1);
        continue;
      }
      if (problems.length > 0) fail(`${entry.filename} ${problems.join('; ')}`);
      tarballs.push(join(tarballDir, entry.filename));
      console.log(`  ${entry.filename}: ${entry.files.length} files, ${(entry.size / 1024).toFixed(0)} KiB`);
    }
    const names = new Set(toPack.map((p) => p.manifest.name));
    for (const pkg of toPack) {
      for (const dep of Object.keys(pkg.manifest.dependencies ?? {})) {
        if (dep.startsWith('@finsync/') && !names.has(dep)) {
          fail(`${pkg.manifest.name} depends on ${dep}, which is not packed`);
        }
      }
    }
    checked.push(
      `npm pack of ${tarballs.length} packages; every file their exports, main, types and bin name is in the tarball, with the README and no tests (${seconds(since)})`,
    );

    // --- 3. A fresh project and one npm install of all the tarballs. ---
    const mswVersion = (() => {
      const installed = join(root, 'node_modules', 'msw', 'package.json');
      if (existsSync(installed)) return JSON.parse(readFileSync(installed, 'utf8')).version;
      return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies?.msw ?? '^2';
    })();
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'finsync-pack-smoke', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
    );
    // @types/node as a Node 20 user has it (the packages' types use Buffer, AbortSignal, fetch).
    const typesNodeVersion = (() => {
      const installed = join(root, 'node_modules', '@types', 'node', 'package.json');
      if (existsSync(installed)) return JSON.parse(readFileSync(installed, 'utf8')).version;
      return (
        JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies?.['@types/node'] ?? '^20'
      );
    })();
    step(`npm install of the tarballs, msw@${mswVersion} and @types/node@${typesNodeVersion} in ${project}`);
    since = Date.now();
    run(
      npm,
      [
        'install',
        ...tarballs,
        `msw@${mswVersion}`,
        `@types/node@${typesNodeVersion}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...(fullInstall ? [] : ['--ignore-scripts']),
      ],
      { cwd: project, timeoutMs: fullInstall ? 600_000 : 120_000 },
    );
    const installed = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies ?? {};
    for (const pkg of toPack) {
      const spec = installed[pkg.manifest.name];
      if (!spec?.startsWith('file:'))
        fail(`${pkg.manifest.name} was not installed from its tarball (${spec})`);
      const manifest = JSON.parse(
        readFileSync(join(project, 'node_modules', pkg.manifest.name, 'package.json'), 'utf8'),
      );
      if (manifest.version !== pkg.manifest.version) {
        fail(`node_modules/${pkg.manifest.name} is ${manifest.version}, not ${pkg.manifest.version}`);
      }
    }
    checked.push(
      `one npm install of all ${tarballs.length} tarballs into a fresh project resolved every @finsync dependency from them (${seconds(since)})`,
    );

    // Private workspace packages (@finsync/internals) are bundled at build time, never published:
    // no built file a user loads (JavaScript or types) may import or name one.
    const privateNames = workspacePackages(root)
      .filter((p) => p.manifest.private === true)
      .map((p) => p.manifest.name);
    for (const pkg of toPack) {
      const dist = join(project, 'node_modules', pkg.manifest.name, 'dist');
      for (const file of listFiles(dist).filter((f) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(f))) {
        // The CLI's bundle inlines its own package.json (for its version): the devDependencies named
        // there (@finsync/test-utils, tests only) are never imported or installed, so they do not count.
        const text = readFileSync(file, 'utf8').replace(/\bdevDependencies["']?\s*:\s*\{[^}]*\}/g, '');
        const named = privateNames.filter((name) => text.includes(name));
        if (named.length > 0) fail(`${file} names the private ${named.join(', ')}: it must be bundled`);
      }
    }
    checked.push(`no built file names a private workspace package (${privateNames.join(', ')})`);

    // better-sqlite3's native binary, when install scripts were skipped.
    const sqliteDir = join(project, 'node_modules', 'better-sqlite3');
    if (!fullInstall && existsSync(sqliteDir)) {
      const binary = join('build', 'Release', 'better_sqlite3.node');
      const want = JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')).version;
      const workspaceDir = join(root, 'node_modules', 'better-sqlite3');
      const have = existsSync(join(workspaceDir, 'package.json'))
        ? JSON.parse(readFileSync(join(workspaceDir, 'package.json'), 'utf8')).version
        : undefined;
      if (have === want && existsSync(join(workspaceDir, binary))) {
        mkdirSync(dirname(join(sqliteDir, binary)), { recursive: true });
        copyFileSync(join(workspaceDir, binary), join(sqliteDir, binary));
        console.log(`  better-sqlite3 ${want}: native binary copied from the workspace's build`);
      } else {
        console.log(`  better-sqlite3 ${want}: no matching workspace build (${have ?? 'none'}); npm rebuild`);
        since = Date.now();
        run(npm, ['rebuild', 'better-sqlite3', '--loglevel=error'], { cwd: project, timeoutMs: 600_000 });
        console.log(`  built in ${seconds(since)}`);
      }
    }

    // --- 4. The types. ---
    // TypeScript code that uses every entry point, compiled (never run) by the workspace's own tsc
    // against the installed packages: strict, module nodenext, where a .ts file of this "type":
    // "module" project is ESM and gets the "import" types and a .cts file is CommonJS and gets the
    // "require" ones. Two programs, run side by side:
    // - every entry point but the MSW ones, with lib ES2023 and @types/node only (a Node user's
    //   setup) and skipLibCheck off, so the shipped declaration files are checked as well;
    // - the MSW ones, with the DOM lib msw's own types need, and skipLibCheck on: checking msw's
    //   declarations (type-fest, graphql, its interceptors) takes over 10 s, and they are not ours.
    const entryPoints = [];
    const typedEntryPoints = [];
    const projectPath = realpathSync(project); // how tsc lists the files it loaded (macOS: /private/var)
    for (const pkg of toPack) {
      for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
        if (subpath === './package.json') continue;
        const specifier = subpath === '.' ? pkg.manifest.name : `${pkg.manifest.name}/${subpath.slice(2)}`;
        const declarations = manifestTargets({ exports: target })
          .filter((t) => /\.d\.[cm]?ts$/.test(t))
          .map((t) => resolve(projectPath, 'node_modules', pkg.manifest.name, t));
        if (declarations.length === 0) fail(`${specifier}: its exports name no declaration file`);
        typedEntryPoints.push({ specifier, declarations });
        if (NEEDS_PEER.has(specifier)) {
          skipped.push(`${specifier}: not loaded, it needs the optional peer ${NEEDS_PEER.get(specifier)}`);
        } else entryPoints.push(specifier);
      }
    }
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    if (!existsSync(tsc)) fail(`no TypeScript compiler at ${tsc}: run npm install in the workspace`);
    const tscVersion = JSON.parse(
      readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8'),
    ).version;
    const typePrograms = [
      {
        tsconfig: 'tsconfig.json',
        files: ['check.ts', 'check.cts'],
        sources: [TYPES_ESM, TYPES_CJS],
        lib: ['ES2023'],
        skipLibCheck: false,
        entries: typedEntryPoints.filter((e) => !NEEDS_DOM_LIB.has(e.specifier)),
      },
      {
        tsconfig: 'tsconfig.msw.json',
        files: ['check-msw.ts', 'check-msw.cts'],
        sources: [TYPES_MSW_ESM, TYPES_MSW_CJS],
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        skipLibCheck: true,
        entries: typedEntryPoints.filter((e) => NEEDS_DOM_LIB.has(e.specifier)),
      },
    ].filter((p) => p.entries.length > 0);
    step(
      `types: tsc ${tscVersion} --noEmit of ${typePrograms.flatMap((p) => p.files).join(', ')} (module nodenext)`,
    );
    since = Date.now();
    const typeResults = await Promise.all(
      typePrograms.map(async (program) => {
        // Every entry point of the program, imported by both files, so both its ESM and its
        // CommonJS declaration files are loaded and checked (an ESM-only one by the ESM file alone).
        const everyEntryPoint = (file) => {
          const entries = program.entries.filter(
            ({ specifier }) => !(file.endsWith('.cts') && ESM_ONLY.has(specifier)),
          );
          return [
            ...entries.map(({ specifier }, i) => `import type * as entryPoint${i} from '${specifier}';`),
            `export type EveryEntryPoint = [${entries.map((_, i) => `typeof entryPoint${i}`).join(', ')}];`,
          ].join('\n');
        };
        program.files.forEach((file, i) =>
          writeFileSync(join(project, file), `${everyEntryPoint(file)}\n\n${program.sources[i]}\n`),
        );
        const tsconfig = {
          compilerOptions: { ...TYPE_CHECK_OPTIONS, lib: program.lib, skipLibCheck: program.skipLibCheck },
          files: program.files,
        };
        writeFileSync(join(project, program.tsconfig), `${JSON.stringify(tsconfig, null, 2)}\n`);
        const began = Date.now();
        // tsc prints its errors and the files it loaded (absolute paths) on stdout; on a non-zero
        // exit, runAsync fails with the errors alone.
        const isListedFile = (line) => isAbsolute(line) && existsSync(line);
        const out = await runAsync(
          process.execPath,
          [tsc, '-p', join(project, program.tsconfig), '--noEmit', '--listFiles'],
          {
            cwd: project,
            check: (stdout) =>
              stdout
                .split('\n')
                .filter((line) => !isListedFile(line.trim()))
                .join('\n'),
          },
        );
        const listed = new Set(
          out
            .split('\n')
            .map((line) => line.trim())
            .filter(isListedFile)
            .map((file) => resolve(file)),
        );
        const unloaded = program.entries.flatMap(({ specifier, declarations }) =>
          declarations.filter((d) => !listed.has(d)).map((d) => `${specifier}: ${d}`),
        );
        if (unloaded.length > 0) {
          fail(
            `tsc -p ${program.tsconfig} did not load these declaration files:\n  ${unloaded.join('\n  ')}`,
          );
        }
        const ours = [...listed].filter((f) => f.includes(`${sep}node_modules${sep}@finsync${sep}`));
        return {
          ...program,
          esm: ours.filter((f) => f.endsWith('.d.ts')).length,
          cjs: ours.filter((f) => f.endsWith('.d.cts')).length,
          took: seconds(began),
        };
      }),
    );
    for (const r of typeResults) {
      console.log(
        `  ${r.tsconfig} (lib ${r.lib.join(', ')}, skipLibCheck ${r.skipLibCheck ? 'on' : 'off'}): ${r.files.join(' and ')} accepted, ${r.entries.length} entry points through ${r.esm} .d.ts and ${r.cjs} .d.cts files (${r.took})`,
      );
    }
    checked.push(
      `types: ${typeResults.flatMap((r) => r.files).join(', ')} use all ${typedEntryPoints.length} entry points (SyncEngine, the feed, the storages, SealedCredentials, ProviderClient, ServiceClient, the MSW helpers) and compile with tsc ${tscVersion} (nodenext, strict) against ${typeResults.reduce((n, r) => n + r.esm, 0)} .d.ts and ${typeResults.reduce((n, r) => n + r.cjs, 0)} .d.cts files, those checked too (skipLibCheck off, except for the MSW entry points, which get the DOM lib); every @ts-expect-error misuse is rejected (${seconds(since)})`,
    );

    // --- 5. The programs. ---
    writeFileSync(join(project, 'entry-points.json'), JSON.stringify(entryPoints));
    writeFileSync(join(project, 'esm.mjs'), ESM_PROGRAM);
    writeFileSync(join(project, 'cjs.cjs'), CJS_PROGRAM);

    for (const [label, file] of [
      ['ESM program (import)', 'esm.mjs'],
      ['CommonJS program (require)', 'cjs.cjs'],
    ]) {
      step(label);
      since = Date.now();
      const out = run(process.execPath, [file], { cwd: project, timeoutMs: 60_000 });
      process.stdout.write(out);
      for (const line of out.split('\n'))
        if (line.startsWith('  ✓ ')) checked.push(`${label}: ${line.slice(4)}`);
      console.log(`  (${seconds(since)})`);
    }

    // --- 6. The bin. ---
    const cli = toPack.find((p) => p.manifest.name === '@finsync/cli');
    if (cli) {
      step('finsync bin');
      const bin = join(
        project,
        'node_modules',
        '.bin',
        process.platform === 'win32' ? 'finsync.cmd' : 'finsync',
      );
      if (!existsSync(bin)) fail('npm did not link the finsync bin into node_modules/.bin');
      const help = run(bin, ['--help'], { cwd: project, timeoutMs: 30_000 });
      for (const word of ['Usage: finsync', 'sync']) {
        if (!help.includes(word)) fail(`finsync --help does not mention "${word}":\n${help}`);
      }
      const version = run(bin, ['--version'], { cwd: project, timeoutMs: 30_000 }).trim();
      if (version !== cli.manifest.version)
        fail(`finsync --version printed "${version}", not ${cli.manifest.version}`);
      checked.push(`node_modules/.bin/finsync --help runs (commands listed) and --version prints ${version}`);
      // The commands load lazily: a real run is what proves their dependencies are installed.
      const db = join(project, 'cli.db');
      run(bin, ['sync', '--sandbox', '--database', db, '--no-progress'], { cwd: project, timeoutMs: 60_000 });
      const feed = run(bin, ['feed', '--database', db], { cwd: project, timeoutMs: 30_000 })
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      if (feed.length === 0 || !feed.every((e, i) => i === 0 || e.seq > feed[i - 1].seq)) {
        fail(`finsync feed printed ${feed.length} entries, or seqs out of order`);
      }
      console.log(`  finsync sync --sandbox, then finsync feed: ${feed.length} changes`);
      checked.push(
        `finsync sync --sandbox into a SQLite file, then finsync feed: ${feed.length} NDJSON changes`,
      );
    }
  } catch (error) {
    console.error(`\n✗ pack smoke test failed: ${error instanceof SmokeError ? error.message : error.stack}`);
    if (project) console.error(`  the project is kept for a look: ${project}`);
    process.exit(1);
  }

  console.log('\nChecked:');
  for (const line of checked) console.log(`  ✓ ${line}`);
  for (const line of skipped) console.log(`  - skipped ${line}`);
  console.log(`pack smoke test passed in ${seconds(started)}`);
  if (keep) console.log(`project kept: ${project}`);
  else rmSync(project, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------
// The programs, written into the fresh project. They only import what a user would.

const ESM_PROGRAM = `import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { ProviderClient } from '@finsync/provider';
import { SandboxProvider, startSandboxServer } from '@finsync/provider/sandbox';
import { createProviderHandlers, testClientOptions } from '@finsync/provider/msw';
import { SyncEngine } from '@finsync/sync';
import { SqliteStorage, SCHEMA_VERSION } from '@finsync/sqlite';
import { PostgresStorage, SCHEMA_VERSION as PG_SCHEMA_VERSION } from '@finsync/postgres';
import { ServiceClient } from '@finsync/service';
import { FakeServiceStore, createServiceHandlers } from '@finsync/service/msw';

const ok = (what) => console.log('  ✓ ' + what);

// Every entry point imports, and exports what its CommonJS build exports.
const require = createRequire(import.meta.url);
const own = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule' && k !== 'module.exports').sort();
const entryPoints = JSON.parse(readFileSync('entry-points.json', 'utf8'));
for (const specifier of entryPoints) {
  const esm = own(await import(specifier));
  const cjs = own(require(specifier));
  assert.ok(esm.length > 0, specifier + ' exports nothing');
  assert.deepEqual(esm, cjs, specifier + ': the ESM and CommonJS builds export different names');
}
ok(entryPoints.length + ' entry points import, with the same exports as their CommonJS builds');

// The sandbox provider over HTTP, synced by the engine into a SQLite file; then the feed.
const dir = mkdtempSync(join(tmpdir(), 'finsync-smoke-db-'));
const file = join(dir, 'finsync.db');
const http = await startSandboxServer(new SandboxProvider({ seed: 42, historyDays: 60 }));
try {
  const storage = new SqliteStorage({ filename: file });
  const engine = new SyncEngine({ storage, clientOptions: { baseUrl: http.baseUrl, ...testClientOptions } });
  await engine.addConnection({ id: 'smoke', apiKey: 'sandbox-key' });
  const report = await engine.sync('smoke');
  assert.equal(report.ok, true, 'sync issues: ' + JSON.stringify(report.issues));
  const rows = await storage.countTransactions('smoke');
  assert.ok(rows > 0, 'no transactions mirrored');
  let cursor = 0;
  let entries = 0;
  const entities = new Set();
  for await (const change of engine.changes({ after: 0 })) {
    assert.ok(change.seq > cursor, 'feed seqs do not increase');
    cursor = change.seq;
    entries += 1;
    entities.add(change.entity);
  }
  assert.ok(entries >= rows && entities.has('account') && entities.has('transaction'));
  await engine.stop();
  await storage.close();
  const reopened = new SqliteStorage({ filename: file, readonly: true });
  assert.equal(await reopened.countTransactions('smoke'), rows);
  await reopened.close();
  ok(
    'SyncEngine synced the sandbox (startSandboxServer) into a SQLite file (schema v' + SCHEMA_VERSION + '): ' +
      report.accounts.length + ' accounts, ' + rows + ' transactions, ' + entries +
      ' feed entries read back in order; the file reopens read-only with the same rows',
  );
} finally {
  await http.close();
  rmSync(dir, { recursive: true, force: true });
}

// MSW: the provider's handlers and the fake service, in one server.
const store = new FakeServiceStore({ apiKeys: [{ key: 'k'.repeat(64), scope: 'read_write' }] });
const checking = store.addAccount({ name: 'Checking', account_type: 'depository' });
// As a sync brings it: a deleted synced row is kept aside and can be restored (one the API created goes).
const synced = store.addTransaction({ account_id: checking.id, name: 'Rent', date: '2026-04-01', amount: '900' });
const msw = setupServer(
  ...createProviderHandlers(new SandboxProvider({ seed: 7 })),
  ...createServiceHandlers(store, { baseUrl: 'http://service.test' }),
);
msw.listen({ onUnhandledRequest: 'error' });
try {
  const provider = new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions });
  const accounts = await provider.listAccounts();
  const balance = await provider.getBalance(accounts[0].id);
  assert.ok(accounts.length > 0 && typeof balance.amount === 'string');
  ok('ProviderClient with testClientOptions read ' + accounts.length + ' accounts and a balance through @finsync/provider/msw');

  const service = new ServiceClient({ baseUrl: 'http://service.test', apiKey: 'k'.repeat(64) });
  const made = await service.transactions.create({ account_id: checking.id, name: 'Coffee', date: '2026-04-30', amount: '4.50', external_id: 'smoke-1' });
  assert.equal(made.created, true);
  const edited = await service.transactions.update(made.transaction.id, { notes: 'from the tarball' });
  assert.equal(edited.notes, 'from the tarball');
  await service.transactions.delete(made.transaction.id);
  await service.transactions.delete(synced.id);
  assert.equal((await service.transactions.list().toArray({ limit: 10 })).length, 0);
  const restored = await service.transactions.restore(synced.id);
  assert.equal(restored.id, synced.id);
  ok('ServiceClient created, updated, deleted and restored a transaction on the fake service (@finsync/service/msw)');
} finally {
  msw.close();
}

// PostgreSQL: constructed without a server; with FINSYNC_TEST_POSTGRES_URL, migrated in a throwaway schema.
const url = process.env.FINSYNC_TEST_POSTGRES_URL;
if (url) {
  const schema = 'finsync_pack_smoke_' + process.pid;
  const pg = new PostgresStorage({ connectionString: url, schema });
  try {
    await pg.init();
    assert.equal(await pg.countTransactions('none'), 0);
  } finally {
    await pg.pool.query('DROP SCHEMA IF EXISTS "' + schema + '" CASCADE');
    await pg.close();
  }
  ok('PostgresStorage migrated a throwaway schema to v' + PG_SCHEMA_VERSION + ' on FINSYNC_TEST_POSTGRES_URL, then dropped it');
} else {
  const pg = new PostgresStorage({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  await pg.close();
  ok('PostgresStorage imported and constructed (schema v' + PG_SCHEMA_VERSION + '; no FINSYNC_TEST_POSTGRES_URL, so no server used)');
}
`;

// The type check's sources: compiled by the workspace's tsc against the installed packages, never
// run. Each @ts-expect-error line must fail to compile (tsc reports an unused directive otherwise),
// which proves the types are real, not `any`. The script puts an `import type * as entryPointN`
// of every entry point of the program above each.

const TYPE_CHECK_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  // The strictest setting a user may have: an option given as `undefined` must be accepted as absent.
  exactOptionalPropertyTypes: true,
  skipDefaultLibCheck: true,
  noEmit: true,
};

const TYPES_ESM = `import { ProviderClient, type ProviderClientOptions, type Transaction as ProviderTransaction } from '@finsync/provider';
import { SandboxProvider, startSandboxServer, type SandboxServer } from '@finsync/provider/sandbox';
import {
  MemoryStorage,
  SyncEngine,
  type ConnectionReport,
  type FeedEntry,
  type MirrorTransaction,
  type Storage,
  type SyncEngineOptions,
  type SyncReport,
} from '@finsync/sync';
import { SealedCredentials, memoryCredentialRecords } from '@finsync/sync/credentials';
import { SqliteStorage } from '@finsync/sqlite';
import { PostgresStorage } from '@finsync/postgres';
import { ServiceClient, type Transaction } from '@finsync/service';

export async function embed(masterKey: Buffer, databaseUrl?: string): Promise<number> {
  const credentials = new SealedCredentials({ masterKey, records: memoryCredentialRecords() });
  await credentials.set('bank', { apiKey: 'sandbox-key' });
  const storage: Storage = databaseUrl
    ? new PostgresStorage({ connectionString: databaseUrl })
    : new SqliteStorage({ filename: ':memory:' });
  const options: SyncEngineOptions = { storage, credentials: credentials.source, clientOptions: { maxRetries: 0 } };
  const engine = new SyncEngine(options);
  const one: ConnectionReport = await engine.sync('bank');
  const all: SyncReport = await engine.sync();
  let cents = 0;
  for await (const entry of engine.changes({ after: 0 })) {
    const seq: number = entry.seq;
    if (entry.entity === 'transaction' && entry.record && seq > 0) {
      const row: MirrorTransaction = entry.record;
      cents += Math.round(Number(row.amount) * 100);
    }
  }
  const batch: FeedEntry[] = await engine.readChanges({ after: 0, limit: 10 });
  await engine.stop();
  return one.ok && all.ok ? cents + batch.length : -1;
}

/** Options read from the environment, each possibly undefined: accepted as absent. */
export function fromEnvironment(env: Record<string, string | undefined>) {
  const client = new ProviderClient({ apiKey: 'k', baseUrl: env.PROVIDER_URL, timeoutMs: undefined });
  const postgres = new PostgresStorage({ connectionString: env.DATABASE_URL });
  const sqlite = new SqliteStorage({ filename: ':memory:', readonly: undefined });
  const engine = new SyncEngine({ storage: sqlite, startDate: env.START_DATE, clientOptions: { maxRetries: undefined } });
  const service = new ServiceClient({ baseUrl: 'http://localhost:3000', apiKey: 'k'.repeat(64), timeoutMs: undefined });
  return [client, postgres, engine, service] as const;
}

export async function provider(): Promise<ProviderTransaction[]> {
  const server: SandboxServer = await startSandboxServer(new SandboxProvider({ seed: 1 }));
  try {
    const options: ProviderClientOptions = { apiKey: 'sandbox-key', baseUrl: server.baseUrl, rateLimit: false };
    const client = new ProviderClient(options);
    const [account] = await client.listAccounts();
    if (!account) return [];
    await new SyncEngine({ storage: new MemoryStorage() }).addConnection({ id: 'c', client });
    return await client.listTransactions(account.id).toArray({ limit: 10 });
  } finally {
    await server.close();
  }
}

export async function service(accountId: string): Promise<Transaction> {
  const client = new ServiceClient({ baseUrl: 'http://localhost:3000', apiKey: 'k'.repeat(64) });
  const made = await client.transactions.create({ account_id: accountId, name: 'Coffee', date: '2026-04-30', amount: '4.50' });
  return made.transaction;
}

export function misuses(row: MirrorTransaction): void {
  // @ts-expect-error SyncEngineOptions needs a storage
  new SyncEngine({});
  // @ts-expect-error amounts are decimal strings
  const amount: number = row.amount;
  // @ts-expect-error SqliteStorage needs a filename or a database
  new SqliteStorage({});
  // @ts-expect-error ServiceClient needs an API key
  new ServiceClient({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error SealedCredentials needs the records
  new SealedCredentials({ masterKey: Buffer.alloc(32) });
  void amount;
}`;

const TYPES_CJS = `import { ProviderClient } from '@finsync/provider';
import { SyncEngine, type FeedEntry, type MirrorTransaction, type SyncEngineOptions } from '@finsync/sync';
import { SealedCredentials, memoryCredentialRecords } from '@finsync/sync/credentials';
import { SqliteStorage } from '@finsync/sqlite';
import { PostgresStorage } from '@finsync/postgres';
import { ServiceClient, type Transaction } from '@finsync/service';

export async function embed(masterKey: Buffer): Promise<MirrorTransaction[]> {
  const client = new ProviderClient({ apiKey: 'sandbox-key', baseUrl: 'http://127.0.0.1:4010/api/v1' });
  const credentials = new SealedCredentials({ masterKey, records: memoryCredentialRecords() });
  const options: SyncEngineOptions = { storage: new SqliteStorage({ filename: ':memory:' }), credentials: credentials.source };
  const engine = new SyncEngine(options);
  await engine.addConnection({ id: 'bank', client });
  await engine.sync('bank');
  const feed: FeedEntry[] = await engine.readChanges({ after: 0, limit: 100 });
  await engine.stop();
  await new PostgresStorage({ connectionString: 'postgres://localhost/finsync' }).close();
  return feed.flatMap((entry) => (entry.entity === 'transaction' && entry.record ? [entry.record] : []));
}

export async function latest(client: ServiceClient): Promise<Transaction | undefined> {
  const [first] = await client.transactions.list().toArray({ limit: 1 });
  return first;
}

export function misuses(engine: SyncEngine): void {
  // @ts-expect-error readChanges needs its options
  void engine.readChanges();
  // @ts-expect-error PostgresStorage takes options, not a URL
  new PostgresStorage('postgres://localhost/finsync');
}`;

const TYPES_MSW_ESM = `import { setupServer } from 'msw/node';
import { ProviderClient } from '@finsync/provider';
import { SandboxProvider } from '@finsync/provider/sandbox';
import { createProviderHandlers, testClientOptions } from '@finsync/provider/msw';
import { MemoryStorage, SyncEngine } from '@finsync/sync';
import { ServiceClient } from '@finsync/service';
import { FakeServiceStore, createServiceHandlers } from '@finsync/service/msw';

export async function withMsw(): Promise<number> {
  const store = new FakeServiceStore({ apiKeys: [{ key: 'k'.repeat(64), scope: 'read_write' }] });
  const checking = store.addAccount({ name: 'Checking', account_type: 'depository' });
  const server = setupServer(
    ...createProviderHandlers(new SandboxProvider({ seed: 7 })),
    ...createServiceHandlers(store, { baseUrl: 'http://service.test' }),
  );
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const engine = new SyncEngine({ storage: new MemoryStorage(), clientOptions: testClientOptions });
    await engine.addConnection({ id: 'c', apiKey: 'sandbox-key' });
    const provider = new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions });
    const service = new ServiceClient({ baseUrl: 'http://service.test', apiKey: 'k'.repeat(64) });
    const made = await service.transactions.create({ account_id: checking.id, name: 'Coffee', date: '2026-04-30', amount: '4.50' });
    return (await provider.listAccounts()).length + (made.created ? 1 : 0);
  } finally {
    server.close();
  }
}

export function misuses(): void {
  // @ts-expect-error testClientOptions is read-only
  testClientOptions.maxRetries = 5;
  // @ts-expect-error createServiceHandlers needs the store
  createServiceHandlers();
}`;

const TYPES_MSW_CJS = `import { testClientOptions, createProviderHandlers } from '@finsync/provider/msw';
import { SandboxProvider } from '@finsync/provider/sandbox';
import { ProviderClient } from '@finsync/provider';
import { FakeServiceStore } from '@finsync/service/msw';

export function clients(): [ProviderClient, number, number] {
  const handlers = createProviderHandlers(new SandboxProvider({ seed: 1 }));
  const store = new FakeServiceStore();
  store.addAccount({ name: 'Savings', account_type: 'depository' });
  return [new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions }), handlers.length, store.accounts.size];
}`;

const CJS_PROGRAM = `'use strict';
const assert = require('node:assert/strict');
const { ProviderClient } = require('@finsync/provider');
const { SandboxProvider, startSandboxServer } = require('@finsync/provider/sandbox');
const { testClientOptions } = require('@finsync/provider/msw');
const { SyncEngine, MemoryStorage } = require('@finsync/sync');
const { SqliteStorage } = require('@finsync/sqlite');
const { PostgresStorage } = require('@finsync/postgres');
const { ServiceClient } = require('@finsync/service');
const { FakeServiceStore } = require('@finsync/service/msw');

const ok = (what) => console.log('  ✓ ' + what);

async function main() {
  const http = await startSandboxServer(new SandboxProvider({ seed: 3, historyDays: 30 }));
  try {
    const client = new ProviderClient({ apiKey: 'sandbox-key', baseUrl: http.baseUrl, ...testClientOptions });
    for (const storage of [new SqliteStorage({ filename: ':memory:' }), new MemoryStorage()]) {
      const engine = new SyncEngine({ storage });
      await engine.addConnection({ id: 'cjs', client });
      const report = await engine.sync('cjs');
      assert.equal(report.ok, true, 'sync issues: ' + JSON.stringify(report.issues));
      const batch = await engine.readChanges({ after: 0, limit: 5 });
      assert.equal(batch.length, 5);
      await engine.stop();
      await storage.close?.();
    }
    ok('SyncEngine synced the sandbox into SqliteStorage(:memory:) and MemoryStorage and read the feed');
  } finally {
    await http.close();
  }
  // One class whichever entry it came from: the errors' documented instanceof holds in CommonJS too.
  const { SyncError } = require('@finsync/sync');
  const { SealedSecretError, MasterKeyError } = require('@finsync/sync/credentials');
  assert.ok(SealedSecretError.prototype instanceof SyncError, 'SealedSecretError is a SyncError');
  assert.ok(MasterKeyError.prototype instanceof SyncError, 'MasterKeyError is a SyncError');
  assert.equal(require('@finsync/provider/msw').SandboxProvider, SandboxProvider);
  ok('classes two entries share are one class (SyncError, SandboxProvider)');
  assert.equal(typeof PostgresStorage, 'function');
  assert.equal(typeof new FakeServiceStore().addAccount, 'function');
  assert.ok(new ServiceClient({ baseUrl: 'http://localhost:3000', apiKey: 'k'.repeat(64) }).transactions);
  ok('PostgresStorage, ServiceClient and FakeServiceStore load and construct');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

main();
