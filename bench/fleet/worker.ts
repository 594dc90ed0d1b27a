/**
 * One fleet worker process: a `SyncWorker` on the shared PostgreSQL schema, with each connection's
 * key derived from its id (what a real deployment would decrypt from its own store). Prints one
 * line of counters a second until stdin closes, then stops claiming and lets its runs finish.
 *
 * Usage: worker.ts '{"url":"postgres://…","schema":"…","baseUrl":"…","concurrency":32,"intervalMs":60000}'
 */
import { PostgresStorage } from '@finsync/postgres';
import { SyncWorker } from '@finsync/sync';

interface FleetWorkerOptions {
  url: string;
  schema: string;
  baseUrl: string;
  concurrency: number;
  intervalMs: number;
  pollIntervalMs: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as FleetWorkerOptions;
// The storage's default pool (10 connections) is enough for 48 runs in flight: a run holds a
// connection only for one statement or one commit at a time. Bigger pools only multiply: 4 workers
// with 40 each exhaust PostgreSQL's default max_connections (100).
const storage = new PostgresStorage({
  connectionString: options.url,
  schema: options.schema,
  migrate: 'manual',
});
const worker = new SyncWorker({
  storage,
  credentials: (connectionId) => ({
    apiKey: `fleet-${connectionId}`,
    clientOptions: { baseUrl: options.baseUrl },
  }),
  concurrency: options.concurrency,
  intervalMs: options.intervalMs,
  pollIntervalMs: options.pollIntervalMs,
  jitter: 0.1,
});

let ok = 0;
let failed = 0;
const errors = new Map<string, number>();
worker.onRun((event) => {
  if (event.report?.ok) ok += 1;
  else {
    failed += 1;
    const why = event.error?.name ?? event.report?.issues[0]?.error.name ?? 'not ok';
    errors.set(why, (errors.get(why) ?? 0) + 1);
  }
});

const started = process.cpuUsage();
const report = setInterval(() => {
  const cpu = process.cpuUsage(started);
  process.stdout.write(
    `${JSON.stringify({
      at: Date.now(),
      ok,
      failed,
      errors: Object.fromEntries(errors),
      cpuMs: (cpu.user + cpu.system) / 1000,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    })}\n`,
  );
}, 1000);

worker.start();
process.stdout.write(`${JSON.stringify({ started: worker.workerId })}\n`);

const shutdown = () => {
  clearInterval(report);
  // An orphaned worker (its parent gone) must not linger on a stuck run.
  setTimeout(() => process.exit(1), 15_000).unref();
  void worker
    .stop()
    .then(() => storage.close())
    .then(() => process.exit(0));
};
process.stdin.on('end', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
