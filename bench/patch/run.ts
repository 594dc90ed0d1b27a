/**
 * Item 6: reference-server PATCH throughput and latency against a bare handler on the same framework
 * doing the same SQLite update, each in its own process, loaded by autocannon from this process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface PatchResult {
  connections: number;
  reference: { rps: number; p50: number; p99: number };
  bare: { rps: number; p50: number; p99: number };
  ratio: number;
}

async function startTarget(mode: 'reference' | 'bare', dataDir: string) {
  const proc = spawn(
    process.execPath,
    [
      '--conditions=@finsync/source',
      '--import',
      'tsx',
      new URL('./server.ts', import.meta.url).pathname,
      mode,
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const first = await createInterface({ input: proc.stdout })[Symbol.asyncIterator]().next();
  const info = JSON.parse(first.value as string) as { url: string; key: string; id: string };
  return { ...info, stop: async () => (proc.kill('SIGTERM'), await once(proc, 'exit')) };
}

async function load(target: { url: string; key: string; id: string }, connections: number, seconds: number) {
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
    // Alternate two values so every request really writes.
    requests: [
      {
        method: 'PATCH',
        path: `/api/v1/transactions/${target.id}`,
        body: JSON.stringify({ transaction: { notes: 'a' } }),
      },
      {
        method: 'PATCH',
        path: `/api/v1/transactions/${target.id}`,
        body: JSON.stringify({ transaction: { notes: 'b' } }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

export async function benchPatch(
  options: { seconds?: number; concurrency?: number[] } = {},
): Promise<PatchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'finsync-patch-'));
  const reference = await startTarget('reference', join(dir, 'ref'));
  const bare = await startTarget('bare', dir);
  try {
    const results: PatchResult[] = [];
    for (const connections of options.concurrency ?? [1, 10, 50]) {
      await load(reference, connections, 1); // warm-up
      await load(bare, connections, 1);
      const r = await load(reference, connections, options.seconds ?? 5);
      const b = await load(bare, connections, options.seconds ?? 5);
      results.push({ connections, reference: r, bare: b, ratio: Number((r.rps / b.rps).toFixed(2)) });
    }
    return results;
  } finally {
    await reference.stop();
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchPatch();
  console.table(
    results.map((r) => ({
      connections: r.connections,
      'reference req/s': r.reference.rps,
      'ref p50/p99 ms': `${r.reference.p50}/${r.reference.p99}`,
      'bare req/s': r.bare.rps,
      'bare p50/p99 ms': `${r.bare.p50}/${r.bare.p99}`,
      ratio: r.ratio,
    })),
  );
}
