/**
 * 3. Concurrent paid chats: for each level, bursts of that many turns sent at once.
 * Levels are interleaved round by round (1, 10, 50, 1, 10, 50, ...), so that a slow minute of
 * the machine does not land on one level only. The server's resident memory (whole process
 * tree) is sampled every 50 ms throughout.
 */
import type { RssSampler } from "./app-server";
import { chatTurn, duplicateSettlements, type TurnTiming } from "./chat-client";
import { summarizeTurns, type TurnSeries } from "./chat-turns";
import { addUsage, cpuBetween, type CpuMeter, type CpuUsage } from "./cpu-time";
import { summarize, type Summary } from "./stats";

const MIN_TURNS_PER_ROUND = 5;

export type ConcurrencyLevel = {
  concurrency: number;
  turns: number;
  errors: number;
  firstError?: string;
  duplicates: number;
  /** Completed turns per second of wall time, over the level's rounds. */
  throughput: number;
  latency: Summary;
  /** Server-side phases of the level's turns (see chat-turns.ts). */
  series: TurnSeries;
  /** Highest summed VmRSS of the server's process tree while this level ran. */
  peakRssBytes: number;
  /** CPU spent by each process during the level's bursts. */
  cpu?: CpuUsage;
};

export type ConcurrencyResult = {
  levels: ConcurrencyLevel[];
  idleRssBytes: number;
  peakRssBytes: number;
  serverProcesses: number;
};

export async function measureConcurrency(
  baseUrl: string,
  rss: RssSampler,
  options: { levels: number[]; rounds: number; cpu?: CpuMeter; log: (line: string) => void },
): Promise<ConcurrencyResult> {
  const idleRssBytes = rss.current();
  const state = new Map(options.levels.map((level) => [level, { turns: [] as TurnTiming[], wallMs: 0, peak: 0, cpu: undefined as CpuUsage | undefined }]));
  let overallPeak = 0;
  for (let round = 0; round < options.rounds; round++) {
    for (const level of options.levels) {
      const entry = state.get(level);
      if (!entry) continue;
      rss.resetPeak();
      // A round is a burst of `level` parallel turns (small levels repeat it, so that their
      // percentiles rest on a few more samples).
      const results: TurnTiming[] = [];
      for (let burst = 0; burst < Math.ceil(MIN_TURNS_PER_ROUND / level); burst++) {
        const started = performance.now();
        const before = options.cpu?.snapshot();
        results.push(...(await Promise.all(Array.from({ length: level }, () => chatTurn(baseUrl)))));
        entry.wallMs += performance.now() - started;
        const after = options.cpu?.snapshot();
        if (before && after) entry.cpu = addUsage(entry.cpu, cpuBetween(before, after));
      }
      entry.turns.push(...results);
      entry.peak = Math.max(entry.peak, rss.peak());
      overallPeak = Math.max(overallPeak, rss.peak());
      options.log(
        `  concurrency ${level}: round ${round + 1}/${options.rounds}, ${results.filter((turn) => !turn.ok).length} errors, peak RSS ${(rss.peak() / 1e6).toFixed(0)} MB`,
      );
    }
  }
  const levels = options.levels.map((level): ConcurrencyLevel => {
    const entry = state.get(level) ?? { turns: [], wallMs: 0, peak: 0, cpu: undefined };
    const ok = entry.turns.filter((turn) => turn.ok);
    return {
      concurrency: level,
      turns: entry.turns.length,
      errors: entry.turns.length - ok.length,
      firstError: entry.turns.find((turn) => !turn.ok)?.error,
      duplicates: duplicateSettlements(entry.turns),
      throughput: ok.length / (entry.wallMs / 1000),
      latency: summarize(ok.map((turn) => turn.finishMs)),
      series: summarizeTurns(entry.turns),
      peakRssBytes: entry.peak,
      cpu: entry.cpu,
    };
  });
  return { levels, idleRssBytes, peakRssBytes: overallPeak, serverProcesses: rss.processCount() };
}
