/** Small statistics over samples in milliseconds (or any unit): nearest-rank percentiles. */

export type Summary = { count: number; median: number; p95: number; mean: number; min: number; max: number };

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** The median: the mean of the two middle samples when their count is even. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function summarize(samples: readonly number[]): Summary {
  const count = samples.length;
  return {
    count,
    median: median(samples),
    p95: percentile(samples, 95),
    mean: count === 0 ? Number.NaN : samples.reduce((sum, value) => sum + value, 0) / count,
    min: count === 0 ? Number.NaN : Math.min(...samples),
    max: count === 0 ? Number.NaN : Math.max(...samples),
  };
}

/** Milliseconds with a precision that suits their size: 0.42, 4.2, 42, 420. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) < 1) return `${value.toFixed(2)} ms`;
  if (Math.abs(value) < 10) return `${value.toFixed(1)} ms`;
  return `${Math.round(value)} ms`;
}

export function kb(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1000).toFixed(1)} kB` : "n/a";
}

export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1_000_000).toFixed(0)} MB` : "n/a";
}
