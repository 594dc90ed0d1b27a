/**
 * `npm run bench:fleet`: the whole fleet run (1 to 4 workers by default; see measure.ts for what is
 * measured and how time is compressed). `npm run bench` runs a short one of the same.
 *
 *   npm run bench:fleet -- [--workers 1,2,3,4] [--freshness-workers L] [--connections 1500] [--interval-s 60]
 *                          [--latency-ms 150] [--seconds 30] [--concurrency 48] [--out DIR]
 *
 * Needs PostgreSQL: FINSYNC_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).
 * Writes fleet.json and fleet.svg to bench/results/ (or --out).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { flag, stringFlag } from '../harness/flags.js';
import { postgresUrl } from '../postgres/probe.js';
import { measureFleet } from './measure.js';
import { renderFleetSvg } from './plot.js';
import { renderFleetTable } from './report.js';

const outDir = resolve(stringFlag('out') ?? new URL('../results/', import.meta.url).pathname);
const workers = (stringFlag('workers') ?? '1,2,3,4').split(',').map(Number);
const results = await measureFleet(
  {
    url: postgresUrl(),
    workers,
    freshnessWorkers: stringFlag('freshness-workers')?.split(',').map(Number) ?? workers,
    connections: flag('connections', 1500),
    intervalS: flag('interval-s', 60),
    latencyMs: flag('latency-ms', 150),
    seconds: flag('seconds', 30),
    concurrency: flag('concurrency', 48),
  },
  (line) => console.log(line),
);
console.log(renderFleetTable(results));
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(outDir, 'fleet.svg'), renderFleetSvg(results));
console.log(`wrote ${join(outDir, 'fleet.json')} and fleet.svg`);
