/**
 * Reference-server PATCH throughput and latency against a bare `node:http` handler doing the same
 * SQLite update, each in its own process (server.ts, bundled as the sync children are), loaded by
 * autocannon from this one. Every request changes the note, so every request writes on both sides
 * (the reference server skips an update that changes nothing).
 * Both `npm run bench` (measure.ts) and `npm run bench:patch` (run.ts) run it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { bundleScript } from '../harness/child-bundle.js';

/** One target under load: requests a second, latency percentiles in ms, requests sent, seconds loaded. */
export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  seconds: number;
}

export interface PatchResult {
  connections: number;
  reference: LoadFigures;
  bare: LoadFigures;
  /** reference.rps / bare.rps, to two decimals. */
  ratio: number;
}

/**
 * Slices of one target as one figure: requests a second over all of them, the middle slice's p50 (the
 * upper middle of an even count) and the worst slice's p99.
 */
function combined(slices: LoadFigures[]): LoadFigures {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const p50s = slices.map((s) => s.p50).sort((a, b) => a - b);
  return {
    rps: Math.round(requests / seconds),
    p50: p50s[Math.floor(p50s.length / 2)]!,
    p99: Math.max(...slices.map((s) => s.p99)),
    requests,
    seconds,
  };
}

/** The connection counts measured unless told otherwise. */
export const PATCH_CONNECTIONS: readonly number[] = [1, 10, 50];

/**
 * One PATCH target in its own process, serving once this resolves. `nodeFlags` go to its `node`
 * (bench/profile.ts passes `--cpu-prof`); `stop()` resolves once it has exited.
 */
export async function startTarget(mode: 'reference' | 'bare', dataDir: string, nodeFlags: string[] = []) {
  // Both targets run as shipped code (one bundle, as tsup builds the server), not through tsx.
  const script = await bundleScript(new URL('./server.ts', import.meta.url));
  // The reference server's access log goes to a file, as a deployment's log collector would take it.
  mkdirSync(dataDir, { recursive: true });
  const logPath = join(dataDir, 'stderr.log');
  const log = openSync(logPath, 'a');
  const proc = spawn(process.execPath, [...nodeFlags, script, mode, dataDir], {
    stdio: ['ignore', 'pipe', log],
  });
  closeSync(log);
  const first = await createInterface({ input: proc.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) {
    const tail = readFileSync(logPath, 'utf8').split('\n').slice(-12).join('\n');
    throw new Error(`the ${mode} PATCH target exited before it served:\n${tail}`);
  }
  const info = JSON.parse(first.value as string) as { url: string; key: string; id: string };
  return { ...info, stop: async () => (proc.kill('SIGTERM'), await once(proc, 'exit')) };
}

/** Numbers each connection autocannon opens, in this process: its notes are its own. */
let connectionsOpened = 0;

/** `connections` connections sending PATCHes to `target` for `seconds`; any non-2xx answer throws. */
export async function load(
  target: { url: string; key: string; id: string },
  connections: number,
  seconds: number,
): Promise<LoadFigures> {
  const path = `/api/v1/transactions/${target.id}`;
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
    // Every request changes the note. Each connection alternates two notes no other connection sends:
    // with shared bodies, connections in step (group commit answers them together) would send the
    // value the one before had just written, and the reference server, which skips an update that
    // changes nothing, would write less than the bare handler. Set once per connection, not per
    // request (autocannon's setupRequest rebuilds every request, about 15 % of a lone connection's time).
    requests: [{ method: 'PATCH', path }],
    setupClient: (client) => {
      const own = (connectionsOpened += 1).toString(36);
      client.setRequests(
        ['a', 'b'].map((turn) => ({
          method: 'PATCH',
          path,
          body: JSON.stringify({ transaction: { notes: `c${own}${turn}` } }),
        })),
      );
    },
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    rps: Math.round(result.requests.total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    seconds: result.duration,
  };
}

/**
 * Each connection count: a 1 s warm-up of both targets, then `seconds` of each, taken as 1 s slices that
 * alternate between them (which one goes first alternates too), so a drift in the machine's speed
 * during the run weighs on both alike instead of on whichever ran second.
 */
export async function benchPatch(
  options: { seconds?: number; concurrency?: readonly number[] } = {},
): Promise<PatchResult[]> {
  const slices = options.seconds ?? 5;
  if (!Number.isInteger(slices) || slices < 1)
    throw new RangeError(`seconds per point must be a whole number of 1 or more, got ${slices}`);
  const dir = mkdtempSync(join(tmpdir(), 'finsync-patch-'));
  // Stopped in `finally` whichever got started, so a target that fails to start leaves no process.
  const started: Awaited<ReturnType<typeof startTarget>>[] = [];
  try {
    const reference = await startTarget('reference', join(dir, 'ref'));
    started.push(reference);
    const bare = await startTarget('bare', dir);
    started.push(bare);
    const results: PatchResult[] = [];
    for (const connections of options.concurrency ?? PATCH_CONNECTIONS) {
      await load(reference, connections, 1); // warm-up
      await load(bare, connections, 1);
      const taken = { reference: [] as LoadFigures[], bare: [] as LoadFigures[] };
      for (let slice = 0; slice < slices; slice++) {
        const order = slice % 2 === 0 ? (['reference', 'bare'] as const) : (['bare', 'reference'] as const);
        for (const name of order)
          taken[name].push(await load(name === 'reference' ? reference : bare, connections, 1));
      }
      const r = combined(taken.reference);
      const b = combined(taken.bare);
      results.push({ connections, reference: r, bare: b, ratio: Number((r.rps / b.rps).toFixed(2)) });
    }
    return results;
  } finally {
    for (const target of started) await target.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
