/** What a sync costs in memory: the process's peak RSS and the V8 heap sampled while it runs. */

export const MiB = 2 ** 20;

/** Peak resident set size of this process so far. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Peaks of `process.memoryUsage()` sampled every 25 ms during the first sync, and the V8 heap still
 * in use after a full GC at its end. A peak RSS that grows with history while `retainedHeapMiB`
 * does not is GC headroom (garbage not yet collected), not data the engine keeps.
 */
export interface MemoryBreakdown {
  peakHeapTotalMiB: number;
  peakHeapUsedMiB: number;
  /** Buffers and other memory outside the V8 heap that V8 knows of (response bodies in flight). */
  peakExternalMiB: number;
  /** The largest rss − heapTotal − external seen: SQLite, better-sqlite3, the runtime's own. */
  peakOtherMiB: number;
  retainedHeapMiB: number | null;
}

export function sampleMemory(): { stop(): Omit<MemoryBreakdown, 'retainedHeapMiB'> } {
  const peak = { heapTotal: 0, heapUsed: 0, external: 0, other: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
    peak.other = Math.max(peak.other, m.rss - m.heapTotal - m.external);
  };
  const timer = setInterval(sample, 25);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return {
        peakHeapTotalMiB: peak.heapTotal / MiB,
        peakHeapUsedMiB: peak.heapUsed / MiB,
        peakExternalMiB: peak.external / MiB,
        peakOtherMiB: peak.other / MiB,
      };
    },
  };
}
