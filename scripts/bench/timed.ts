/** Accumulates time spent in named phases, for breakdowns around code we call. */
export class PhaseTimer {
  private readonly totals = new Map<string, number[]>();
  private current = new Map<string, number>();

  /** Times one call of `work` under `phase` (several calls in one sample add up). */
  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.current.set(phase, (this.current.get(phase) ?? 0) + performance.now() - started);
    }
  }

  /** Closes one sample: every phase seen so far gets one entry (0 when it did not run). */
  endSample(phases: readonly string[]): Record<string, number> {
    const sample: Record<string, number> = {};
    for (const phase of phases) {
      const value = this.current.get(phase) ?? 0;
      sample[phase] = value;
      const list = this.totals.get(phase) ?? [];
      list.push(value);
      this.totals.set(phase, list);
    }
    this.current = new Map();
    return sample;
  }

  /** Drops what was timed since the last sample (a warm-up call). */
  discardSample(): void {
    this.current = new Map();
  }

  samples(phase: string): number[] {
    return this.totals.get(phase) ?? [];
  }
}
