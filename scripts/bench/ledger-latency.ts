/**
 * `npm run bench:ledger`: what one payment's budget bookkeeping costs on each store that can
 * hold budgets (memory, the embedded database, a PostgreSQL server, Redis), measured here so
 * the choice of where budgets live rests on figures. For each store, in five rounds: 200
 * payments one after another (reserve, then commit: the two calls every paid turn makes), and
 * 50 reserves of one payer at once (the contention a burst of one payer's requests causes).
 * Prints the spread over the rounds (median of the round medians, and the worst round's p95).
 * Then, on the two databases, a batch-settlement channel's two statements per repeat call
 * (channel-ledger-latency.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createStore } from "../../lib/store/create-store";
import type { Store } from "../../lib/store/store-types";
import { startPostgresServer } from "../../tests/support/postgres-server";
import { startRedisServer } from "../../tests/support/redis-server";
import { CHANNEL_TABLE_HEADER, measureChannelCalls } from "./channel-ledger-latency";
import { median, ms, percentile } from "./stats";

const ROUNDS = 5;
const SEQUENTIAL = 200;
const BURST = 50;
const TX = `0x${"ab".repeat(32)}`;

async function measure(name: string, store: Store): Promise<string> {
  const payMedians: number[] = [];
  const payP95s: number[] = [];
  const burstTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const payer = `0x${(round + 1).toString(16).padStart(40, "0")}`;
    const samples: number[] = [];
    for (let index = 0; index < SEQUENTIAL; index += 1) {
      const id = `r${round}-${index}`;
      const started = performance.now();
      await store.ledger.reserve({ payer, reservationId: id, amount: 1n, dailyLimit: 1_000_000n });
      await store.ledger.commit(id, { txHash: TX });
      samples.push(performance.now() - started);
    }
    payMedians.push(median(samples));
    payP95s.push(percentile(samples, 95));
    const burstPayer = `0x${(round + 100).toString(16).padStart(40, "0")}`;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        store.ledger.reserve({ payer: burstPayer, reservationId: `b${round}-${index}`, amount: 1n, dailyLimit: 1_000_000n }),
      ),
    );
    burstTimes.push(performance.now() - started);
  }
  return `| ${name} | ${ms(median(payMedians))} | ${ms(Math.max(...payP95s))} | ${ms(median(burstTimes))} (${ms(Math.min(...burstTimes))}–${ms(Math.max(...burstTimes))}) |`;
}

async function main(): Promise<void> {
  const channelLines = [...CHANNEL_TABLE_HEADER];
  const lines = ["| store | reserve + commit, median | p95 (worst round) | 50 reserves of one payer at once, median (range) |", "|---|---|---|---|"];
  const dataDir = mkdtempSync(path.join(tmpdir(), "x402-ledger-bench-"));
  const postgres = await startPostgresServer();
  const redis = await startRedisServer();
  try {
    const stores: [string, Store][] = [
      ["memory (one process)", createStore()],
      ["embedded database (PGlite, on disk)", createStore({ database: { kind: "pglite", dataDir } })],
      ["PostgreSQL server (127.0.0.1)", createStore({ database: { kind: "postgres", url: await postgres.database() } })],
      ["Redis (127.0.0.1)", createStore({ redisUrl: redis.url })],
    ];
    for (const [name, store] of stores) {
      await store.ping();
      lines.push(await measure(name, store));
      if (store.channels) channelLines.push(await measureChannelCalls(name, store.channels));
      await store.close();
    }
  } finally {
    await redis.stop();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(lines.join("\n"));
  console.log(`\nA batch-settlement channel's repeat call, each statement alone:\n${channelLines.join("\n")}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
