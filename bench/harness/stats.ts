/** Medians and spreads of repeated measurements: every printed figure is one of these. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and spread of repeated measurements; `spread` is (max − min) / median. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  spread: number;
  samples: number[];
}

export function summarize(samples: readonly number[]): Summary {
  const m = median(samples);
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  return { median: m, min, max, spread: m === 0 ? 0 : (max - min) / m, samples: [...samples] };
}
