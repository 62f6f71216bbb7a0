/** The performance targets and how each is judged from a run's results. */
import type { BlockComparison, TurnSeries } from "./chat-turns";
import type { ConcurrencyResult } from "./concurrency";
import type { OverheadResult } from "./payment-overhead";
import type { PageWeight } from "./page-weight";
import { kb, mb, ms } from "./stats";

export type Verdict = "met" | "missed" | "not run";
export type TargetRow = { id: string; measure: string; target: string; value: string; verdict: Verdict };

export const LIMITS = {
  overheadRatio: 1.15,
  firstByteMs: 50,
  turnMs: 250,
  concurrencyLevel: 50,
  concurrencyP95Ms: 2_000,
  peakRssBytes: 300_000_000,
  blockMarginMs: 300,
  pageGzipBytes: 250_000,
};

export type JudgedResults = {
  overhead?: OverheadResult;
  turn?: TurnSeries;
  concurrency?: ConcurrencyResult;
  block?: BlockComparison;
  page?: PageWeight;
};

const verdict = (ran: boolean, ok: boolean): Verdict => (!ran ? "not run" : ok ? "met" : "missed");

export function judge(results: JudgedResults): TargetRow[] {
  const { overhead, turn, concurrency, block, page } = results;
  const top = concurrency?.levels.find((level) => level.concurrency === LIMITS.concurrencyLevel);
  const blockTarget = block ? block.blockTimeSeconds * 1000 + LIMITS.blockMarginMs : Number.NaN;
  return [
    {
      id: "1",
      measure: "Payment overhead: our purchase path ÷ bare @x402/fetch (medians)",
      target: `≤ ${LIMITS.overheadRatio.toFixed(2)}×`,
      value: overhead ? `${overhead.ratio.toFixed(2)}× (${ms(overhead.ours.median)} vs ${ms(overhead.bare.median)})` : "n/a",
      verdict: verdict(Boolean(overhead && overhead.ours.count > 0 && overhead.bare.count > 0), (overhead?.ratio ?? Infinity) <= LIMITS.overheadRatio),
    },
    {
      id: "2a",
      measure: "Chat turn over HTTP: first byte, median",
      target: `< ${LIMITS.firstByteMs} ms`,
      value: turn ? ms(turn.firstByte.median) : "n/a",
      verdict: verdict(Boolean(turn && turn.firstByte.count > 0), (turn?.firstByte.median ?? Infinity) < LIMITS.firstByteMs),
    },
    {
      id: "2b",
      measure: "Chat turn over HTTP: whole turn (to d:), median, instant mining",
      target: `< ${LIMITS.turnMs} ms`,
      value: turn ? ms(turn.finish.median) : "n/a",
      verdict: verdict(Boolean(turn && turn.finish.count > 0), (turn?.finish.median ?? Infinity) < LIMITS.turnMs && (turn?.errors ?? 1) === 0),
    },
    {
      id: "3a",
      measure: `${LIMITS.concurrencyLevel} concurrent paid chats: errors`,
      target: "0",
      value: top ? `${top.errors} of ${top.turns}` : "n/a",
      verdict: verdict(Boolean(top), top?.errors === 0 && top.duplicates === 0),
    },
    {
      id: "3b",
      measure: `${LIMITS.concurrencyLevel} concurrent paid chats: turn p95`,
      target: `< ${ms(LIMITS.concurrencyP95Ms)}`,
      value: top ? ms(top.latency.p95) : "n/a",
      verdict: verdict(Boolean(top && top.latency.count > 0), (top?.latency.p95 ?? Infinity) < LIMITS.concurrencyP95Ms),
    },
    {
      id: "3c",
      measure: "Server peak RSS (next start process tree), all levels",
      target: `< ${mb(LIMITS.peakRssBytes)}`,
      value: concurrency ? mb(concurrency.peakRssBytes) : "n/a",
      verdict: verdict(Boolean(concurrency), (concurrency?.peakRssBytes ?? Infinity) < LIMITS.peakRssBytes),
    },
    {
      id: "4",
      measure: block ? `Turn with ${block.blockTimeSeconds} s blocks (to d:), median` : "Turn with real block times (to d:), median",
      target: block ? `< ${ms(blockTarget)} (block time + ${LIMITS.blockMarginMs} ms)` : `< block time + ${LIMITS.blockMarginMs} ms`,
      value: block ? ms(block.blocks.finish.median) : "n/a",
      verdict: verdict(
        Boolean(block && block.blocks.finish.count > 0),
        (block?.blocks.finish.median ?? Infinity) < blockTarget && (block?.blocks.errors ?? 1) === 0,
      ),
    },
    {
      id: "5",
      measure: "Chat page `/`: first-load JavaScript, gzipped",
      target: `< ${kb(LIMITS.pageGzipBytes)}`,
      value: page ? kb(page.totalGzipBytes) : "n/a",
      verdict: verdict(Boolean(page), (page?.totalGzipBytes ?? Infinity) < LIMITS.pageGzipBytes),
    },
  ];
}
