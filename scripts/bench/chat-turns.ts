/**
 * 2. One discover-and-buy turn over HTTP, measured N times in a row, and
 * 4. the same turn against a world with real block times, interleaved with the instant world.
 * Server-side phases come from the `at` stamps of the `p:` events (same machine, same clock).
 */
import { chatTurn, duplicateSettlements, type TurnTiming } from "./chat-client";
import { cpuBetween, type CpuMeter, type CpuUsage } from "./cpu-time";
import { median, summarize, type Summary } from "./stats";

export const TURN_PHASES = [
  "request → discovering",
  "discovering → discovered",
  "discovered → quoted",
  "quoted → signing",
  "signing → verifying",
  "verifying → confirmed",
  "confirmed → delivered",
  "delivered → d: received",
] as const;

export type TurnSeries = {
  turns: number;
  errors: number;
  firstError?: string;
  duplicates: number;
  firstByte: Summary;
  firstChunk: Summary;
  firstPayment: Summary;
  settled: Summary;
  finish: Summary;
  phases: Record<string, Summary>;
  /** Medians per turn: protocol lines, text lines, body bytes, body chunks as received. */
  shape: { events: number; textEvents: number; bytes: number; chunks: number };
  /** CPU spent by each process while the turns ran (not counting warm-up). */
  cpu?: CpuUsage;
};

/** Splits one turn by the server's own stamps; NaN where a status is missing. */
function phasesOf(turn: TurnTiming): Record<string, number> {
  const at = (status: string) => turn.paymentStatuses.find((event) => event.status === status)?.at ?? Number.NaN;
  const received = (status: string) => turn.paymentStatuses.find((event) => event.status === status)?.receivedMs ?? Number.NaN;
  return {
    "request → discovering": at("discovering") - turn.sentAtEpochMs,
    "discovering → discovered": at("discovered") - at("discovering"),
    "discovered → quoted": at("quoted") - at("discovered"),
    "quoted → signing": at("signing") - at("quoted"),
    "signing → verifying": at("verifying") - at("signing"),
    "verifying → confirmed": at("confirmed") - at("verifying"),
    "confirmed → delivered": at("delivered") - at("confirmed"),
    "delivered → d: received": turn.finishMs - received("delivered"),
  };
}

export function summarizeTurns(all: readonly TurnTiming[]): TurnSeries {
  const ok = all.filter((turn) => turn.ok);
  const pick = (key: keyof Pick<TurnTiming, "firstByteMs" | "firstChunkMs" | "firstPaymentMs" | "settledMs" | "finishMs">) =>
    summarize(ok.map((turn) => turn[key]));
  const phaseSamples = ok.map(phasesOf);
  const phases = Object.fromEntries(
    TURN_PHASES.map((phase) => [phase, summarize(phaseSamples.map((sample) => sample[phase] as number).filter((value) => Number.isFinite(value)))]),
  );
  return {
    turns: all.length,
    errors: all.length - ok.length,
    firstError: all.find((turn) => !turn.ok)?.error,
    duplicates: duplicateSettlements(all),
    firstByte: pick("firstByteMs"),
    firstChunk: pick("firstChunkMs"),
    firstPayment: pick("firstPaymentMs"),
    settled: pick("settledMs"),
    finish: pick("finishMs"),
    phases,
    shape: {
      events: median(ok.map((turn) => turn.events)),
      textEvents: median(ok.map((turn) => turn.textEvents)),
      bytes: median(ok.map((turn) => turn.bytes)),
      chunks: median(ok.map((turn) => turn.chunks)),
    },
  };
}

export async function warmUp(baseUrl: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) await chatTurn(baseUrl);
}

export async function measureTurns(
  baseUrl: string,
  options: { turns: number; warmup: number; cpu?: CpuMeter; log: (line: string) => void },
): Promise<TurnSeries> {
  await warmUp(baseUrl, options.warmup);
  const turns: TurnTiming[] = [];
  const before = options.cpu?.snapshot();
  for (let index = 0; index < options.turns; index++) {
    turns.push(await chatTurn(baseUrl));
    if ((index + 1) % 20 === 0) options.log(`  chat turn: ${index + 1}/${options.turns}`);
  }
  const after = options.cpu?.snapshot();
  return { ...summarizeTurns(turns), cpu: before && after ? cpuBetween(before, after) : undefined };
}

export type BlockComparison = {
  blockTimeSeconds: number;
  instant: TurnSeries;
  blocks: TurnSeries;
  /** CPU of both worlds and servers together, and the machine's. */
  cpu?: CpuUsage;
};

/** The instant world and the block-time world, turn by turn in alternating order. */
export async function measureBlockTime(
  instantUrl: string,
  blockUrl: string,
  options: { turns: number; warmup: number; blockTimeSeconds: number; cpu?: CpuMeter; log: (line: string) => void },
): Promise<BlockComparison> {
  await warmUp(blockUrl, Math.min(options.warmup, 2));
  const before = options.cpu?.snapshot();
  const instant: TurnTiming[] = [];
  const blocks: TurnTiming[] = [];
  // Turns sent back to back would lock onto the block clock (each one starting just after the
  // block that ended the previous one, so always waiting almost a whole block). A user arrives
  // at a random moment: wait a random part of a block first (not counted).
  const blockTurn = async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * options.blockTimeSeconds * 1000));
    blocks.push(await chatTurn(blockUrl));
  };
  for (let index = 0; index < options.turns; index++) {
    if (index % 2 === 0) {
      instant.push(await chatTurn(instantUrl));
      await blockTurn();
    } else {
      await blockTurn();
      instant.push(await chatTurn(instantUrl));
    }
    if ((index + 1) % 5 === 0) options.log(`  block time: ${index + 1}/${options.turns} pairs`);
  }
  const after = options.cpu?.snapshot();
  return {
    blockTimeSeconds: options.blockTimeSeconds,
    instant: summarizeTurns(instant),
    blocks: summarizeTurns(blocks),
    cpu: before && after ? cpuBetween(before, after) : undefined,
  };
}
