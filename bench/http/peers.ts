/**
 * Peers, side by side: a whole pull through `ProviderClient` (every row validated and normalized)
 * against a plain `fetch` + `JSON.parse` pull of the same URLs from the same sandbox process, each
 * pull in a child process of its own (pull.ts) so that each has its own peak RSS. The two alternate,
 * and which goes first alternates, so drift on the shared cores weighs on both alike.
 *
 * The peer clients themselves (other public Lunch Flow clients) are not part of the run: their code
 * is not in this repository. docs/benchmarks.md keeps the one-off comparison with them.
 */
import { sandboxOptions } from '../data/data-set.js';
import { startSandboxProcess } from '../data/sandbox-process.js';
import type { Progress } from '../harness/progress.js';
import { runTask } from '../harness/spawn-task.js';
import type { PullResult, Puller } from './pull.js';

export interface PeersConfig {
  rows: number;
  /** Pulls of each kind. */
  reps: number;
  progress: Progress;
}

export interface PeersResult {
  rows: number;
  /** Requests per pull: the account list and one whole-history request per account. */
  requests: number;
  pulls: Record<Puller, { ms: number[]; peakRssMiB: number[] }>;
}

export async function measurePeers(config: PeersConfig): Promise<PeersResult> {
  config.progress(`peers: client and plain whole pulls, ${config.reps} of each, one process per pull`);
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  try {
    const pulls: PeersResult['pulls'] = {
      client: { ms: [], peakRssMiB: [] },
      plain: { ms: [], peakRssMiB: [] },
    };
    let reference: PullResult | undefined;
    for (let rep = 0; rep < config.reps; rep++) {
      // The first pull is the client's: the plain pulls ask the URLs it asked.
      const order: Puller[] = rep % 2 === 0 ? ['client', 'plain'] : ['plain', 'client'];
      for (const which of order) {
        const result = await runTask('pull', {
          baseUrl: sandbox.baseUrl,
          which,
          ...(reference ? { urls: reference.urls } : {}),
        });
        reference ??= result;
        // Both must have pulled the same thing, or the comparison says nothing.
        if (result.rows !== reference.rows || result.urls.join('\n') !== reference.urls.join('\n'))
          throw new Error(
            `the ${which} pull differs from the first client pull (${result.rows} rows against ${reference.rows})`,
          );
        pulls[which].ms.push(result.ms);
        pulls[which].peakRssMiB.push(result.peakRssMiB);
      }
    }
    return { rows: reference!.rows, requests: reference!.urls.length, pulls };
  } finally {
    await sandbox.stop();
  }
}
