/**
 * From the samples the measurement children send back to the figures the JSON stores: every
 * repeated measurement becomes a `Summary` (median and spread); counts come from the first run.
 */
import type { EngineRunResult } from '../engine/run-engine.js';
import { summarize, type Summary } from '../harness/stats.js';
import type { HttpModeResult, ValidationResult } from '../http/client-vs-fetch.js';
import type { PeersResult } from '../http/peers.js';
import type { NaiveSample } from '../naive/importer.js';
import type { RawVariant } from '../sqlite/raw.js';
import type { SqliteSyncResult } from '../sqlite/sync.js';
import type {
  HttpFigures,
  NaiveFigures,
  PeersFigures,
  ResyncFigures,
  SyncFigures,
  ValidationFigures,
} from './results.js';

export function syncFigures(results: readonly EngineRunResult[], databaseMiB?: number): SyncFigures {
  const first = results[0]!.full;
  return {
    rows: first.rows,
    ms: summarize(results.map((r) => r.full.ms)),
    peakRssMiB: summarize(results.map((r) => r.full.peakRssMiB)),
    baselineRssMiB: summarize(results.map((r) => r.full.baselineRssMiB)),
    requests: first.requests,
    ...(databaseMiB === undefined ? {} : { databaseMiB }),
  };
}

export function summarizeRaw(ms: Record<RawVariant, number[]>): Record<RawVariant, Summary> {
  return { rows: summarize(ms.rows), 'rows+feed': summarize(ms['rows+feed']), apply: summarize(ms.apply) };
}

export function resyncFigures(results: readonly SqliteSyncResult[], step: 'noop' | 'day'): ResyncFigures {
  const steps = results.map((r) => r[step]!);
  const first = steps[0]!;
  return {
    ms: summarize(steps.map((s) => s.ms)),
    requests: steps.map((s) => s.requests),
    feedEntriesWritten: steps.map((s) => s.feedEntriesWritten),
    fetched: first.fetched,
    added: first.added,
    modified: first.modified,
    removed: first.removed,
    ...(step === 'noop' ? { bookkeepingRows: results.map((r) => r.noopBookkeepingRows ?? 0) } : {}),
  };
}

export function naiveFigures(samples: readonly NaiveSample[]): NaiveFigures {
  return {
    rows: samples[0]!.rows,
    totalMs: summarize(samples.map((s) => s.totalMs)),
    fetchMs: summarize(samples.map((s) => s.fetchMs)),
    inserted: samples.map((s) => s.inserted),
  };
}

export function httpFigures(result: HttpModeResult): HttpFigures {
  return {
    pages: result.pages,
    rows: result.rows,
    plainMs: summarize(result.plainMs),
    clientMs: summarize(result.clientMs),
  };
}

export function validationFigures(result: ValidationResult): ValidationFigures {
  return {
    rows: result.rows,
    jsonParseMs: summarize(result.jsonParseMs),
    schemaParseMs: summarize(result.schemaParseMs),
  };
}

export function peersFigures(result: PeersResult): PeersFigures {
  return {
    rows: result.rows,
    requests: result.requests,
    clientMs: summarize(result.pulls.client.ms),
    plainMs: summarize(result.pulls.plain.ms),
    clientPeakRssMiB: summarize(result.pulls.client.peakRssMiB),
    plainPeakRssMiB: summarize(result.pulls.plain.peakRssMiB),
  };
}
