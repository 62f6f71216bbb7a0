/**
 * `npm run bench:channel`: repeat calls to one channel service (x402 `batch-settlement`), our
 * purchase core beside the bare official client, on the local world.
 *
 * - Ours: `runPurchase` wired as the chat route wires it (`purchaseDependenciesOf`), the agent
 *   wallet paying, the channel's state in the database store: PGlite in a new folder, and a
 *   PostgreSQL server the script starts (or `BENCH_DATABASE_URL`).
 * - Bare: `wrapFetchWithPayment` with `@x402/evm`'s batch-settlement client and its in-memory
 *   channel storage, paying from another funded account (a channel is per payer and payee, so
 *   the two sides never share one).
 *
 * The local world runs in a process of its own (`--world own-process`, the default), as a service
 * elsewhere would: its services answer while the client works, and the bench's process holds
 * only the two clients. `--world in-process` starts it inside the bench's process, as the
 * integration tests do; there a request's answer waits for any work the client does beside it.
 *
 * Each side opens its channel during the warm-up (one deposit each); then the measured calls
 * are interleaved pair by pair, the order alternating. Reported per database: each side's time
 * per call, the difference within each pair (our overhead), ours split into its steps (the
 * ledger's two statements and the voucher's signature, timed by wrappers), each side's time
 * outside its paid request, and each side's call in four segments (SEGMENTS below). Last, every channel service claims and settles (`flush`), and the
 * transactions of the whole run are counted: calls per transaction on chain.
 *
 *   npm run bench:channel -- --calls 200 --warmup 10 [--database pglite|postgres|both] [--world own-process|in-process]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Network } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, http, type Hex, type LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase } from "../../lib/agent/purchase/run-purchase";
import type { ChannelLedger } from "../../lib/channels/channel-ledger";
import { localAccount } from "../../lib/crypto/secp256k1";
import { StreamWriter } from "../../lib/stream";
import { createStore } from "../../lib/store/create-store";
import type { Store } from "../../lib/store/store-types";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import type { AppDependencies } from "../../lib/doors/app-dependencies";
import { parseEnv } from "../../lib/env";
import { readDevnetCoordinates, type DevnetCoordinates } from "../../lib/network/devnet-coordinates";
import { startChatHarness } from "../../tests/support/chat-harness";
import { startWorldProcess } from "./world";
import { startPostgresServer } from "../../tests/support/postgres-server";
import { wholeNumberFlag } from "./small-bench";
import { ms, summarize, type Summary } from "./stats";
import { PhaseTimer } from "./timed";

type DatabaseKind = "pglite" | "postgres";
type WorldKind = "own-process" | "in-process";

/** The local world and the app wired to it, wherever the world runs. */
type BenchWorld = { devnet: DevnetCoordinates; deps: AppDependencies; flush(): Promise<void>; stop(): Promise<void> };

/** No claim round during the calls (only on flush), no heartbeat block; limits out of the way. */
const WORLD_OPTIONS = { channelClaimIntervalSeconds: 0, heartbeatSeconds: 0 };
const APP_ENV = { LIMIT_DEFAULT_DAILY: "100000", LIMIT_MAX_DAILY: "100000" };

async function startBenchWorld(kind: WorldKind, store: Store): Promise<BenchWorld> {
  if (kind === "in-process") {
    const harness = await startChatHarness({ store, devnet: WORLD_OPTIONS, env: APP_ENV });
    return { devnet: harness.devnet, deps: harness.deps, flush: async () => void (await harness.devnet.channels.flush()), stop: harness.stop };
  }
  const folder = mkdtempSync(path.join(tmpdir(), "bench-channel-world-"));
  const world = await startWorldProcess({ blockTimeSeconds: 0, walletUsdc: 10_000_000_000n, writeFile: path.join(folder, "devnet.json"), ...WORLD_OPTIONS });
  try {
    const devnet = readDevnetCoordinates(world.file);
    // The app reads the world's coordinates file itself, as `npm run dev` has it do.
    const env = parseEnv({ X402_NETWORK: "local", DEVNET_FILE: world.file, DEMO_MODEL_CHUNK_DELAY_MS: "0", RATE_LIMIT_REQUESTS: "10000", ...APP_ENV });
    const deps = createAppDependencies(env, { store });
    return {
      devnet,
      deps,
      flush: world.flush,
      stop: async () => {
        await world.stop();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await world.stop();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}
type Call = { ms: number; paid: number; segments: Record<Segment, number>; error?: string };

/**
 * Our steps of a voucher call, timed by wrappers (a deposit call also signs its authorization).
 * The ledger's settle runs after the answer is handed back; the bench waits for it (as a door
 * does before it ends its answer) outside the call's time and before the bare side's call, so
 * it never runs beside the bare client: "after the answer" is that wait.
 */
const PHASES = ["ledger: acquire", "sign", "ledger: settle", "after the answer"] as const;

type SideResult = { total: Summary; outsidePaidRequest: Summary; segments: Record<Segment, Summary>; errors: number; firstError?: string };

/**
 * A call's time in four segments, from each side's own fetch: the unpaid request (until its 402's
 * headers), from there to the paid request (reading the 402, choosing, the quote and its checks,
 * the ledger's turn, the signature), the paid request (until its answer's headers), and from
 * there to the call's end (reading the answer and reporting it).
 */
const SEGMENTS = ["unpaid request", "402 → paid request", "paid request", "answer → end"] as const;
type Segment = (typeof SEGMENTS)[number];

/** A fetch that notes when each side's unpaid and paid requests start and end, for one call at a time. */
function segmentedFetch<Input extends string | URL | Request>(inner: (input: Input, init?: RequestInit) => Promise<Response>) {
  const marks = { callStart: 0, unpaidEnd: 0, paidStart: 0, paidEnd: 0 };
  const wrapped = async (input: Input, init?: RequestInit): Promise<Response> => {
    const paid = hasPaymentHeader(input, init);
    if (paid) marks.paidStart = performance.now();
    try {
      return await inner(input, init);
    } finally {
      if (paid) marks.paidEnd = performance.now();
      else marks.unpaidEnd = performance.now();
    }
  };
  const start = () => {
    marks.callStart = performance.now();
    marks.unpaidEnd = marks.paidStart = marks.paidEnd = 0;
  };
  const segments = (end: number): Record<Segment, number> => ({
    "unpaid request": marks.unpaidEnd - marks.callStart,
    "402 → paid request": marks.paidStart - marks.unpaidEnd,
    "paid request": marks.paidEnd - marks.paidStart,
    "answer → end": end - marks.paidEnd,
  });
  return { fetch: wrapped, start, segments, paidMs: () => marks.paidEnd - marks.paidStart };
}

type Result = {
  database: DatabaseKind;
  calls: number;
  ours: SideResult;
  bare: SideResult;
  difference: Summary;
  phases: Record<string, Summary>;
  transactions: number;
  deposits: number;
  blocksDuringCalls: number;
};

function worldFlag(): WorldKind {
  const index = process.argv.indexOf("--world");
  const value = index >= 0 ? process.argv[index + 1] : "own-process";
  if (value === "own-process" || value === "in-process") return value;
  throw new Error("--world takes own-process or in-process");
}

function databaseFlag(): DatabaseKind[] {
  const index = process.argv.indexOf("--database");
  const value = index >= 0 ? process.argv[index + 1] : "both";
  if (value === "both") return ["pglite", "postgres"];
  if (value === "pglite" || value === "postgres") return [value];
  throw new Error("--database takes pglite, postgres or both");
}

function hasPaymentHeader(input: string | URL | Request, init?: RequestInit): boolean {
  const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
  return headers.has("payment-signature") || headers.has("x-payment");
}

/** The channel ledger with each call timed. */
function timedChannels(channels: ChannelLedger, timer: PhaseTimer): ChannelLedger {
  return {
    ...channels,
    acquire: (input) => timer.time("ledger: acquire", () => channels.acquire(input)),
    settle: (input) => timer.time("ledger: settle", () => channels.settle(input)),
    get: (id) => channels.get(id),
    ofPayer: (payer, limit) => channels.ofPayer(payer, limit),
    idle: (idleMs, limit) => channels.idle(idleMs, limit),
    claimForRefund: (idleMs, limit, refundMs) => channels.claimForRefund(idleMs, limit, refundMs),
    refundFailed: (channelId) => channels.refundFailed(channelId),
    recordClaims: (channelId, claims) => channels.recordClaims(channelId, claims),
    reserveDeposit: (input) => channels.reserveDeposit(input),
    abandon: (input) => channels.abandon(input),
    resync: (input) => channels.resync(input),
    refunded: (input) => channels.refunded(input),
  };
}

async function measure(kind: DatabaseKind, store: Store, options: { calls: number; warmup: number; world: WorldKind }): Promise<Result> {
  const world = await startBenchWorld(options.world, store);
  try {
    const { devnet, deps } = world;
    const service = devnet.services.find((candidate) => candidate.name === "tick-feed");
    if (!service) throw new Error("the local world has no tick-feed channel service");
    const url = `${service.url}?${new URLSearchParams(service.queryParams)}`;
    const chain = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });

    // Ours, with timing wrappers around what a voucher call awaits.
    const timer = new PhaseTimer();
    const agent = localAccount(devnet.accounts.agent.privateKey as Hex);
    const timedAgent: LocalAccount = { ...agent, signTypedData: (parameters) => timer.time("sign", () => agent.signTypedData(parameters)) };
    const wired = purchaseDependenciesOf(deps);
    if (!wired.channels) throw new Error("the store has no channel ledger");
    const oursFetch = segmentedFetch(wired.fetch);
    const purchaseDeps = { ...wired, channels: timedChannels(wired.channels, timer), fetch: oursFetch.fetch };
    let sequence = 0;
    const ours = async (): Promise<Call> => {
      const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
      void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
      sequence += 1;
      oursFetch.start();
      const started = performance.now();
      const tracker = new PaymentTracker(writer);
      const outcome = await runPurchase(purchaseDeps, {
        service: service.name,
        url,
        method: "GET",
        intent: `bench-channel-${process.pid}-${sequence}`,
        payer: { kind: "agent", account: timedAgent },
        limits: { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 1_000_000_000_000n },
        maxPayments: 3,
        tracker,
        deadline: Date.now() + 45_000,
      });
      const ended = performance.now();
      await timer.time("after the answer", () => tracker.recorded());
      const call = { ms: ended - started, paid: oursFetch.paidMs(), segments: oursFetch.segments(ended) };
      return outcome.status === "delivered" ? call : { ...call, error: `${outcome.status}: ${"message" in outcome ? outcome.message : ""}` };
    };

    // Bare: the official client, another funded account (its own channel).
    const bareAccount = privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(bareAccount, chain), { storage: new InMemoryClientChannelStorage() });
    const client = new x402Client()
      .register(devnet.network as Network, scheme)
      .setSpendControls({ allowedAssets: [{ network: devnet.network as Network, asset: devnet.usdc }] });
    const bareFetch = segmentedFetch((input: string | URL | Request, init?: RequestInit) => fetch(input, init));
    const payingFetch = wrapFetchWithPayment(bareFetch.fetch, client);
    const bare = async (): Promise<Call> => {
      bareFetch.start();
      const started = performance.now();
      const response = await payingFetch(url, { headers: { accept: "application/json" } });
      await response.text();
      const ended = performance.now();
      const call = { ms: ended - started, paid: bareFetch.paidMs(), segments: bareFetch.segments(ended) };
      return response.ok ? call : { ...call, error: `HTTP ${response.status}` };
    };

    const firstBlock = await chain.getBlockNumber();
    // Warm-up: each side opens its channel (one deposit each) and warms its code.
    for (let index = 0; index < options.warmup; index += 1) {
      const [a, b] = [await ours(), await bare()];
      if (a.error || b.error) throw new Error(`warm-up failed: ${a.error ?? b.error}`);
      timer.discardSample();
    }
    const blockBefore = await chain.getBlockNumber();
    const samples = { ours: [] as number[], bare: [] as number[], oursOutside: [] as number[], bareOutside: [] as number[], difference: [] as number[] };
    const segments = { ours: [] as Record<Segment, number>[], bare: [] as Record<Segment, number>[] };
    const errors = { ours: 0, bare: 0, firstOurs: undefined as string | undefined, firstBare: undefined as string | undefined };
    for (let index = 0; index < options.calls; index += 1) {
      // The order alternates, so neither side always runs right after the other.
      let a: Awaited<ReturnType<typeof ours>>;
      let b: Awaited<ReturnType<typeof bare>>;
      if (index % 2 === 0) {
        a = await ours();
        b = await bare();
      } else {
        b = await bare();
        a = await ours();
      }
      if (a.error || b.error) timer.discardSample();
      else timer.endSample(PHASES);
      if (a.error) {
        errors.ours += 1;
        errors.firstOurs ??= a.error;
      }
      if (b.error) {
        errors.bare += 1;
        errors.firstBare ??= b.error;
      }
      if (a.error || b.error) continue;
      samples.ours.push(a.ms);
      samples.bare.push(b.ms);
      samples.oursOutside.push(a.ms - a.paid);
      samples.bareOutside.push(b.ms - b.paid);
      samples.difference.push(a.ms - b.ms);
      segments.ours.push(a.segments);
      segments.bare.push(b.segments);
    }
    const bySegment = (side: Record<Segment, number>[]) =>
      Object.fromEntries(SEGMENTS.map((segment) => [segment, summarize(side.map((call) => call[segment]))])) as Record<Segment, Summary>;
    const blocksDuringCalls = Number((await chain.getBlockNumber()) - blockBefore);
    // Every channel service claims what it holds and settles it; count the run's transactions.
    await world.flush();
    const lastBlock = await chain.getBlockNumber();
    let transactions = 0;
    for (let block = firstBlock + 1n; block <= lastBlock; block += 1n) transactions += (await chain.getBlock({ blockNumber: block })).transactions.length;
    const phases = Object.fromEntries(PHASES.map((phase) => [phase, summarize(timer.samples(phase))]));
    return {
      database: kind,
      calls: samples.ours.length,
      ours: {
        total: summarize(samples.ours),
        outsidePaidRequest: summarize(samples.oursOutside),
        segments: bySegment(segments.ours),
        errors: errors.ours,
        firstError: errors.firstOurs,
      },
      bare: {
        total: summarize(samples.bare),
        outsidePaidRequest: summarize(samples.bareOutside),
        segments: bySegment(segments.bare),
        errors: errors.bare,
        firstError: errors.firstBare,
      },
      difference: summarize(samples.difference),
      phases,
      transactions,
      deposits: 2,
      blocksDuringCalls,
    };
  } finally {
    await world.stop();
  }
}

function report(result: Result, warmup: number): void {
  const row = (name: string, summary: Summary) =>
    `| ${name} | ${ms(summary.median)} | ${ms(summary.p95)} | ${ms(summary.min)} | ${ms(summary.max)} | ${summary.count} |`;
  console.log(`\n### ${result.database === "pglite" ? "PGlite (embedded)" : "PostgreSQL server"}\n`);
  console.log(
    `${result.calls} interleaved pairs after ${warmup} warm-up pairs; errors: ours ${result.ours.errors}, bare ${result.bare.errors}${result.ours.firstError ? ` (ours: ${result.ours.firstError})` : ""}${result.bare.firstError ? ` (bare: ${result.bare.firstError})` : ""}.\n`,
  );
  console.log("|  | median | p95 | min | max | n |\n| --- | --- | --- | --- | --- | --- |");
  console.log(row("ours: `runPurchase`, a voucher call", result.ours.total));
  console.log(row("bare: `@x402/fetch` + batch-settlement client", result.bare.total));
  console.log(row("ours − bare, pair by pair", result.difference));
  console.log(row("ours: outside the paid request", result.ours.outsidePaidRequest));
  console.log(row("bare: outside the paid request", result.bare.outsidePaidRequest));
  for (const [phase, summary] of Object.entries(result.phases)) console.log(row(`ours: ${phase}`, summary));
  console.log("\nWhere each side's time goes, segment by segment (medians; the segments' medians need not add up to the call's):\n");
  console.log("| segment | ours | bare | ours − bare |\n| --- | --- | --- | --- |");
  for (const segment of SEGMENTS) {
    const [ours, bare] = [result.ours.segments[segment].median, result.bare.segments[segment].median];
    console.log(`| ${segment} | ${ms(ours)} | ${ms(bare)} | ${ms(ours - bare)} |`);
  }
  const calls = (result.calls + warmup) * 2;
  console.log(
    `\nBlocks mined during the measured calls: ${result.blocksDuringCalls}. Transactions of the whole run (both sides' deposits, then every claim and settlement after the flush): ${result.transactions}, for ${calls} paid calls: ${(calls / Math.max(1, result.transactions)).toFixed(0)} calls per transaction.`,
  );
}

async function main(): Promise<void> {
  const calls = Math.max(20, wholeNumberFlag("calls", 200));
  const warmup = Math.max(1, wholeNumberFlag("warmup", 10));
  const world = worldFlag();
  console.log(`The local world runs ${world === "own-process" ? "in a process of its own" : "in the bench's process"}.`);
  for (const kind of databaseFlag()) {
    if (kind === "pglite") {
      const dataDir = mkdtempSync(path.join(tmpdir(), "bench-channel-"));
      const store = createStore({ database: { kind: "pglite", dataDir } });
      try {
        report(await measure(kind, store, { calls, warmup, world }), warmup);
      } finally {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    } else {
      const server = process.env.BENCH_DATABASE_URL ? undefined : await startPostgresServer();
      const url = process.env.BENCH_DATABASE_URL ?? (await server!.database());
      const store = createStore({ database: { kind: "postgres", url } });
      try {
        report(await measure(kind, store, { calls, warmup, world }), warmup);
      } finally {
        await store.close();
        await server?.stop();
      }
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
