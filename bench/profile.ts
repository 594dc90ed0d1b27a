/**
 * Where the time goes: runs one measurement child under `node --cpu-prof` and prints the functions
 * with the most self time, and self time per package. Used to explain the targets a run misses.
 *
 *   node --conditions=@finsync/source --import tsx bench/profile.ts [--target sync|http|pull|patch|patch-bare] [--mode whole|windowed]
 *        [--rows 100000] [--top 25] [--connections 1] [--seconds 10]
 *
 * `sync` profiles one full sync into SQLite (the engine's process; the sandbox server is another
 * process and is not in the profile). `http` profiles the client-overhead measurement, where plain
 * fetch passes and client passes alternate: what the client adds shows up as zod, ky and provider code.
 * `pull` profiles the client's side of the peers measurement alone: two whole pulls (one warms up).
 * `patch` profiles the reference server (bundled, as the PATCH measurement runs it) while autocannon
 * sends it PATCHes on `--connections` connections for `--seconds`, from its first PATCH on;
 * `patch-bare` the same for the bare handler it is measured against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxOptions, type SyncMode } from './data/data-set.js';
import { load, startTarget } from './patch/bench-patch.js';
import { startSandboxProcess } from './data/sandbox-process.js';
import { flag, stringFlag } from './harness/flags.js';
import { runTask } from './harness/spawn-task.js';
import { tempDir } from './harness/temp-dir.js';

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The measurement child is one esbuild bundle (harness/child-bundle.ts), so a profile names the
 * bundle, not the source file. esbuild starts each module's code with a `// path` comment: this maps
 * a bundle line back to the file it came from, so the summary names packages and files.
 */
function sourceOf(bundleUrl: string): (line: number) => string | undefined {
  const starts: { line: number; path: string }[] = [];
  readFileSync(new URL(bundleUrl), 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const module = /^\/\/ ((?:packages|examples|bench|node_modules)\/\S+\.[cm]?[jt]s)$/.exec(text);
      if (module) starts.push({ line, path: module[1]! });
    });
  return (line) => {
    let found: string | undefined;
    for (const start of starts) {
      if (start.line > line) break;
      found = start.path;
    }
    return found;
  };
}

/** Which package or runtime part a function belongs to, from its script URL. */
function area(url: string, name: string): string {
  const workspace = /\/(?:packages|examples)\/([^/]+)\//.exec(url);
  if (workspace) return `@finsync/${workspace[1]}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1]!;
  if (url.includes('/bench/')) return 'bench';
  if (url.startsWith('node:')) return 'node internals';
  if (url === '') return name.startsWith('(') ? name : 'native (V8 builtins, C++ bindings)';
  return 'other';
}

/** The URL of a measurement child's bundle (harness/child-bundle.ts). */
const BUNDLE = /\/finsync-bench\/child-[^/]+\/child\.mjs$/;

/**
 * Self time per function and per area, counting only samples from the first one taken inside
 * `entry` (the task function) onwards: process start-up and module loading (tsx compiling the
 * TypeScript sources) come before it and are not the measured work.
 */
function summarizeProfile(profile: CpuProfile, entry: string, top: number): string {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inEntry = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byNode.get(at)?.callFrame;
      // The entry is bench code, or in the measurement child's bundle, which holds the bench's code too.
      if (frame?.functionName === entry && (frame.url.includes('/bench/') || BUNDLE.test(frame.url)))
        return true;
    }
    return false;
  };
  const first = profile.samples.findIndex(inEntry);
  const bundles = new Map<string, (line: number) => string | undefined>();
  const sourceFile = (url: string, line: number): string => {
    if (!BUNDLE.test(url)) return url;
    let lookup = bundles.get(url);
    if (!lookup) bundles.set(url, (lookup = sourceOf(url)));
    const path = lookup(line);
    return path ? `file:///${path}` : url;
  };
  const selfByFunction = new Map<string, { ms: number; area: string }>();
  const selfByArea = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (i < first) return;
    const node = byNode.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node || node.callFrame.functionName === '(idle)') return;
    const { functionName, lineNumber } = node.callFrame;
    const url = sourceFile(node.callFrame.url, lineNumber);
    const where = url
      ? // A bundle's line numbers say nothing about the source file's: the file alone is named.
        `${url.replace(/^file:\/\/.*?\/(packages|examples|node_modules|bench)\//, '$1/')}` +
        (url === node.callFrame.url ? `:${lineNumber + 1}` : '')
      : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    const a = area(url, functionName);
    const entry = selfByFunction.get(key) ?? { ms: 0, area: a };
    entry.ms += ms;
    selfByFunction.set(key, entry);
    selfByArea.set(a, (selfByArea.get(a) ?? 0) + ms);
    total += ms;
  });
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `busy time ${(total / 1000).toFixed(2)} s from the start of ${entry}() (idle and start-up excluded)`,
    '',
    'self time by area (a native call, e.g. a SQLite statement, counts as its JS caller):',
  ];
  for (const [a, ms] of [...selfByArea].sort((x, y) => y[1] - x[1])) lines.push(`  ${pct(ms)}  ${a}`);
  lines.push('', `top ${top} functions by self time:`);
  for (const [key, { ms, area: a }] of [...selfByFunction].sort((x, y) => y[1].ms - x[1].ms).slice(0, top)) {
    lines.push(`  ${pct(ms)}  ${key}  [${a}]`);
  }
  return lines.join('\n');
}

const target = stringFlag('target') ?? 'sync';
const mode = (stringFlag('mode') ?? 'whole') as SyncMode;
const rows = flag('rows', 100_000);
const tmp = tempDir();
try {
  if (target === 'sync') {
    await runTask('sqlite-sync', { rows, mode, fullOnly: true }, { cpuProfDir: tmp.dir });
  } else if (target === 'http') {
    await runTask('http', { rows, reps: 5 }, { cpuProfDir: tmp.dir });
  } else if (target === 'pull') {
    const sandbox = await startSandboxProcess(sandboxOptions(rows));
    try {
      await runTask('pull', { baseUrl: sandbox.baseUrl, which: 'client' }, { cpuProfDir: tmp.dir });
    } finally {
      await sandbox.stop();
    }
  } else if (target === 'patch' || target === 'patch-bare') {
    const which = target === 'patch' ? 'reference' : 'bare';
    const server = await startTarget(which, join(tmp.dir, 'data'), ['--cpu-prof', '--cpu-prof-dir', tmp.dir]);
    try {
      const figures = await load(server, flag('connections', 1), flag('seconds', 10));
      console.log(`${figures.requests} requests in ${figures.seconds} s (${figures.rps} a second)`);
    } finally {
      await server.stop();
    }
  } else throw new Error(`--target must be sync, http, pull, patch or patch-bare, got ${target}`);
  const file = readdirSync(tmp.dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written');
  const profile = JSON.parse(readFileSync(join(tmp.dir, file), 'utf8')) as CpuProfile;
  console.log(
    target === 'patch' || target === 'patch-bare'
      ? `profile of the ${target === 'patch' ? "reference server's" : "bare handler's"} PATCH, ${flag('connections', 1)} connection(s)`
      : `profile of ${target} (${mode}), ${rows.toLocaleString('en-US')} rows`,
  );
  // The PATCH's entry is the server's own listener (http/direct-update.ts), in the bundle.
  const entry =
    target === 'sync'
      ? 'sqliteSync'
      : target === 'patch'
        ? 'directOrApp'
        : target === 'patch-bare'
          ? 'bareHandler'
          : target;
  console.log(summarizeProfile(profile, entry, flag('top', 25)));
} finally {
  tmp.remove();
}
