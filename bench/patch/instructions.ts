/**
 * `npm run bench:patch:instructions [-- --target reference|bare] [--warm 10000] [--requests 2000] [--keep DIR] [--js-names N]`:
 * the CPU instructions one PATCH costs each target, counted by valgrind's callgrind while one
 * connection sends PATCHes one after the other. Not part of `npm run bench` (the issue's target is
 * requests a second): it is for comparing two versions of the server's code on a host whose speed
 * swings too much for timings to tell a few per cent apart. On the 2-core AMD host of the
 * forty-fifth session two runs of one build agreed within 1 %, while its requests a second moved by
 * half between one minute and the next (docs/benchmarks.md, "Reference-server PATCH").
 *
 * Counts user-space instructions of every thread of the server's process (the kernel's part, its
 * system calls, is not counted). V8 keeps optimizing code on a background thread for thousands of
 * requests under valgrind, so the count starts after `--warm` requests, and what that thread did
 * while counting is printed apart ("background compiles") and left out of the figure to compare.
 * `--keep DIR` copies callgrind's output there (`callgrind.<target>.out`), for `callgrind_annotate`
 * to show where the instructions go, function by function. `--js-names N` also prints the N heaviest
 * JavaScript functions by name (callgrind sees compiled JavaScript only as addresses; jit-names.ts),
 * and `--keep` then keeps V8's map of those addresses and the bundle the names point into.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleScript } from '../harness/child-bundle.js';
import { flag, stringFlag } from '../harness/flags.js';
import { namedJitFunctions, perfMapPath, type JitFunction } from './jit-names.js';

type Target = 'reference' | 'bare';

/** Functions whose inclusive count is printed per request, by a pattern of callgrind's names. */
const PARTS: ReadonlyArray<[label: string, pattern: RegExp]> = [
  ['HTTP parsing, with what runs when the headers are in', /^llhttp_execute /],
  ['SQLite statements with rows (get)', /^Statement::JS_get\(/],
  ['SQLite statements without rows (run)', /^Statement::JS_run\(/],
  ['JSON.stringify', /^Builtins_JsonStringify /],
  ['JSON.parse', /^v8::internal::Builtin_JsonParse\(/],
  ['garbage collection, on the main thread', /^v8::internal::Heap::CollectGarbage\(/],
];
const COMPILES = /^v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal\(/;

function callgrindControl(pid: number, ...args: string[]): Promise<unknown> {
  // Asynchronously: valgrind takes the command only while the process runs.
  return once(spawn('callgrind_control', [...args, String(pid)], { stdio: 'ignore' }), 'exit');
}

function ensureTools(): void {
  for (const tool of ['valgrind', 'callgrind_annotate', 'callgrind_control'])
    if (spawnSync(tool, ['--help'], { stdio: 'ignore' }).error)
      throw new Error(`${tool} is needed and was not found: apt-get install valgrind`);
}

async function count(
  target: Target,
  warm: number,
  requests: number,
  keep: string | undefined,
  jsNames: number,
) {
  const script = await bundleScript(new URL('./server.ts', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'finsync-patch-instructions-'));
  // valgrind's and the server's own messages, shown when the run fails.
  const logPath = join(dir, 'stderr.log');
  const log = openSync(logPath, 'a');
  let proc: ChildProcess | undefined;
  try {
    const out = join(dir, 'callgrind.out');
    proc = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${out}`,
        process.execPath,
        // V8 writes where each compiled function lies, for jit-names.ts (only when asked: it adds work).
        ...(jsNames > 0
          ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(dir, 'v8.log')}`]
          : []),
        script,
        target,
        dir,
      ],
      { stdio: ['ignore', 'pipe', log] },
    );
    const first = await createInterface({ input: proc.stdout! })[Symbol.asyncIterator]().next();
    if (first.done) throw new Error(`the ${target} target exited under valgrind before it served`);
    const info = JSON.parse(first.value as string) as { url: string; key: string; id: string };
    const url = new URL(info.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let sent = 0;
    // Two notes in turn, so every PATCH writes (the reference server skips a write that changes nothing).
    const patch = () =>
      new Promise<void>((resolve, reject) => {
        const body = JSON.stringify({ transaction: { notes: `note ${sent++ % 2}` } });
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: 'PATCH',
            path: `/api/v1/transactions/${info.id}`,
            agent,
            headers: {
              'x-api-key': info.key,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            response.resume();
            response.once('end', () =>
              response.statusCode === 200
                ? resolve()
                : reject(new Error(`${target}: a PATCH was answered ${response.statusCode}`)),
            );
          },
        );
        req.once('error', reject);
        req.end(body);
      });
    for (let i = 0; i < warm; i++) await patch();
    await callgrindControl(proc.pid!, '-i', 'on');
    for (let i = 0; i < requests; i++) await patch();
    await callgrindControl(proc.pid!, '-i', 'off');
    agent.destroy();
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    await exited;
    const mapPath = perfMapPath(proc.pid!);
    if (keep !== undefined) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(out, join(keep, `callgrind.${target}.out`));
      if (jsNames > 0 && existsSync(mapPath)) {
        copyFileSync(mapPath, join(keep, `perf.${target}.map`));
        // The names' file:line:column point into the bundle, which is removed when this script exits.
        copyFileSync(script, join(keep, 'child.mjs'));
      }
    }
    // Every function, however small its share: a part may fall under the default threshold.
    const annotated = execFileSync(
      'callgrind_annotate',
      ['--inclusive=yes', '--threshold=100', '--auto=no', out],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const lines = annotated.split('\n').map((line) => {
      // `1,234 (5.6%)  file:function [object]`; the file has no `::`, C++ names do.
      const match = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:[^\s:]+:(?!:))?(.*)$/.exec(line);
      return match ? { count: Number(match[1]!.replaceAll(',', '')), name: match[2]! } : undefined;
    });
    const inclusive = (pattern: RegExp) => lines.find((line) => line && pattern.test(line.name))?.count;
    const total = inclusive(/^PROGRAM TOTALS/) ?? 0;
    // callgrind_control says it found no run, or was refused, and still exits 0: nothing was counted.
    if (total === 0) throw new Error(`callgrind counted nothing in the ${target} target`);
    const compiles = inclusive(COMPILES) ?? 0;
    const per = (n: number | undefined) => (n === undefined ? undefined : Math.round(n / requests));
    let heaviestJs: JitFunction[] = [];
    if (jsNames > 0) {
      if (!existsSync(mapPath)) throw new Error(`node wrote no ${mapPath} for --js-names`);
      heaviestJs = namedJitFunctions(lines, mapPath)
        .slice(0, jsNames)
        .map(({ name, inclusive: instructions }) => ({ name, inclusive: per(instructions)! }));
      if (heaviestJs.length === 0)
        throw new Error(`no address of callgrind's profile was found in ${mapPath}`);
    }
    return {
      target,
      perRequest: per(total - compiles)!,
      backgroundCompiles: per(compiles)!,
      parts: PARTS.map(([label, pattern]) => ({ label, perRequest: per(inclusive(pattern)) })),
      heaviestJs,
    };
  } catch (error) {
    const tail = readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`, { cause: error });
  } finally {
    // A run that failed midway leaves no server behind under valgrind.
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    closeSync(log);
    rmSync(dir, { recursive: true, force: true });
    if (proc?.pid !== undefined && jsNames > 0) rmSync(perfMapPath(proc.pid), { force: true });
  }
}

/** A whole number of at least 1, from `--name`. */
function wholeFlag(name: string, fallback: number): number {
  const value = flag(name, fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} is a whole number of 1 or more, got ${value}`);
  return value;
}

const chosen = stringFlag('target');
if (chosen !== undefined && chosen !== 'reference' && chosen !== 'bare')
  throw new Error(`--target is reference or bare, got ${chosen}`);
const targets: Target[] = chosen ? [chosen] : ['reference', 'bare'];
ensureTools();
const warm = wholeFlag('warm', 10_000);
const requests = wholeFlag('requests', 2_000);
const keep = stringFlag('keep');
const jsNames = flag('js-names', 0);
if (!Number.isInteger(jsNames) || jsNames < 0)
  throw new Error(`--js-names is a whole number of functions to name, got ${jsNames}`);
for (const target of targets) {
  const result = await count(target, warm, requests, keep, jsNames);
  console.log(
    `${target}: ${result.perRequest.toLocaleString('en')} instructions a PATCH ` +
      `(after ${warm} to warm up, over ${requests}; background compiles ${result.backgroundCompiles.toLocaleString('en')} more)`,
  );
  for (const part of result.parts)
    console.log(
      `  ${part.label}: ${part.perRequest === undefined ? 'not found in the profile' : part.perRequest.toLocaleString('en')}`,
    );
  if (result.heaviestJs.length > 0) {
    // V8 writing its map adds work: the total above is for comparing with runs named the same way.
    console.log(
      `  the ${result.heaviestJs.length} heaviest JavaScript functions, inclusive, a PATCH (with --perf-basic-prof, which the total includes):`,
    );
    for (const fn of result.heaviestJs)
      console.log(`  ${fn.inclusive.toLocaleString('en').padStart(9)}  ${fn.name}`);
  }
}
