/**
 * `npm run bench:patch [-- --seconds N]`: the reference-server PATCH against a bare handler on its
 * own, N seconds (default 5) per connection count, printed as one table. `npm run bench` runs the same
 * measurement (measure.ts) unless given `--no-patch`.
 */
import { flag } from '../harness/flags.js';
import { benchPatch } from './bench-patch.js';

const results = await benchPatch({ seconds: flag('seconds', 5) });
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
