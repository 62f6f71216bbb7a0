/**
 * Where the app server's CPU goes in one discover-and-buy turn, measured piece by piece in this
 * process, with the local world in a process of its own (so its facilitator, services and
 * anvil are not counted). Each line is CPU time (user + system) per operation after warm-up.
 *
 *   npx tsx --conditions=react-server scripts/bench/turn-cpu-breakdown.ts [--iterations 100]
 *
 * It also runs a number of paid turns between two full garbage collections and reports the
 * heap they leave behind, which tells a leak from heap headroom when the server's RSS grows.
 *
 * Compare the "whole turn, in-process" lines with the app server's CPU per turn over HTTP
 * (BENCHMARKS.md, section 2): the difference is what `next start` adds (HTTP, routing,
 * response piping). Next runs every request inside AsyncLocalStorage, whose async hooks make
 * each promise dearer on Node 22, so the in-process turn is measured with and without one.
 * The per-payment log line of the chat run is silenced while measuring.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { streamText } from "ai";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { createBaseModel, wrapForRequest } from "../../lib/agent/model/create-chat-model";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase } from "../../lib/agent/purchase/run-purchase";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv } from "../../lib/env";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import { StreamWriter } from "../../lib/stream";
import { BUY_MESSAGE, nextIdempotencyKey } from "./chat-client";
import { startWorldProcess } from "./world";

export type BreakdownLine = { name: string; cpuMs: number; wallMs: number };

/** Heap still in use after a full GC, before and after a number of paid turns (bursts of 50). */
export type RetainedHeap = { turns: number; beforeBytes: number; afterBytes: number; perTurnBytes: number };

export type Breakdown = { lines: BreakdownLine[]; retained?: RetainedHeap };

/** A full garbage collection without starting Node with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}

async function drain(stream: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!stream) return;
  const reader = stream.getReader();
  for (;;) if ((await reader.read()).done) return;
}

async function measure(name: string, iterations: number, work: (index: number) => Promise<void>): Promise<BreakdownLine> {
  for (let index = 0; index < Math.min(20, iterations); index++) await work(-1 - index);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < iterations; index++) await work(index);
  const used = process.cpuUsage(cpu);
  return { name, cpuMs: (used.user + used.system) / 1000 / iterations, wallMs: (performance.now() - started) / iterations };
}

export async function turnCpuBreakdown(options: { iterations: number; heapTurns?: number; log?: (line: string) => void }): Promise<Breakdown> {
  // The chat run logs one JSON line per payment; here that would only flood the terminal.
  const info = console.info;
  console.info = () => undefined;
  const directory = mkdtempSync(path.join(tmpdir(), "x402-bench-breakdown-"));
  const world = await startWorldProcess({ blockTimeSeconds: 0, walletUsdc: 10_000_000_000n, writeFile: path.join(directory, "devnet.json") });
  const lines: BreakdownLine[] = [];
  let retained: RetainedHeap | undefined;
  const add = (line: BreakdownLine) => {
    lines.push(line);
    options.log?.(`  ${line.name}: ${line.cpuMs.toFixed(2)} ms CPU`);
  };
  try {
    const env = parseEnv({
      X402_NETWORK: "local",
      DEVNET_FILE: world.file,
      DEMO_MODEL_CHUNK_DELAY_MS: "0",
      RATE_LIMIT_REQUESTS: "100000",
      LIMIT_DEFAULT_DAILY: "100000",
      LIMIT_MAX_DAILY: "100000",
    });
    const deps = createAppDependencies(env, { store: createMemoryStore() });
    const chat = async (content: string) => {
      const response = await handleChatRequest(
        new Request("http://127.0.0.1/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": nextIdempotencyKey() },
          body: JSON.stringify({ messages: [{ role: "user", content }] }),
        }),
        () => deps,
      );
      await drain(response.body);
    };
    const { iterations } = options;
    add(await measure("whole buy turn, handleChatRequest in-process", iterations, () => chat(BUY_MESSAGE)));
    const storage = new AsyncLocalStorage<number>();
    add(await measure("whole buy turn, in-process, inside AsyncLocalStorage (as under Next)", iterations, () => storage.run(1, () => chat(BUY_MESSAGE))));
    add(await measure("text-only turn (no payment), in-process", iterations, () => chat("Hello, what can you do?")));

    const service = deps.network.devnet?.services.find((candidate) => candidate.name === "weather");
    if (!service || !deps.agentAccount) throw new Error("no weather service or agent wallet in the local world");
    const url = `${service.url}?${new URLSearchParams(service.queryParams).toString()}`;
    const agent = deps.agentAccount;
    add(
      await measure("runPurchase (402, quote, balance, reserve, sign, pay, read)", iterations, async (index) => {
        const writer = new StreamWriter({ framing: "sse", keepAliveMs: 0 });
        void drain(writer.readable);
        await runPurchase(purchaseDependenciesOf(deps), {
          service: "weather",
          url,
          method: "GET",
          intent: `breakdown-${process.pid}-${index}`,
          payer: { kind: "agent", account: agent },
          limits: { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 1_000_000_000_000n },
          maxPayments: 3,
          tracker: new PaymentTracker(writer),
          deadline: Date.now() + 45_000,
        });
      }),
    );
    add(
      await measure("  of which: agent signTypedData (EIP-3009)", iterations, async () => {
        await agent.signTypedData({
          domain: { name: "USD Coin", version: "2", chainId: deps.network.chainId, verifyingContract: deps.network.usdc },
          types: {
            TransferWithAuthorization: [
              { name: "from", type: "address" },
              { name: "to", type: "address" },
              { name: "value", type: "uint256" },
              { name: "validAfter", type: "uint256" },
              { name: "validBefore", type: "uint256" },
              { name: "nonce", type: "bytes32" },
            ],
          },
          primaryType: "TransferWithAuthorization",
          message: { from: agent.address, to: agent.address, value: 10_000n, validAfter: 0n, validBefore: 1n, nonce: `0x${"11".repeat(32)}` },
        });
      }),
    );
    add(
      await measure("  of which: USDC balanceOf over JSON-RPC (viem)", iterations, async () => {
        await deps.chain.balanceOf(agent.address as `0x${string}`);
      }),
    );
    add(
      await measure("  of which: one unpaid GET through the guarded fetch (402)", iterations, async () => {
        const response = await deps.fetch(url, { headers: { accept: "application/json" } });
        await response.arrayBuffer();
      }),
    );
    add(
      await measure("discovery find('weather') (cached after the first call)", iterations, async () => {
        await deps.discovery.find("weather");
      }),
    );

    const base = createBaseModel({ apiKey: undefined, baseUrl: undefined, modelId: env.MODEL, demoChunkDelayMs: 0 });
    const textStep = async () => {
      const { model } = wrapForRequest(base, { payment: 0.2, standard: 0.5, discovery: 0.8 });
      const writer = new StreamWriter({ framing: "sse", keepAliveMs: 0 });
      const drained = drain(writer.readable);
      const result = streamText({ model, messages: [{ role: "user", content: "Hello, what can you do?" }], maxRetries: 0 });
      for await (const part of result.fullStream) if (part.type === "text-delta") writer.text(part.text);
      writer.finish({ finishReason: "stop", txHash: null, payments: [] });
      await drained;
    };
    add(await measure("one streamText text step (demo model, ~80 word chunks) into the StreamWriter", iterations, textStep));
    add(await measure("  the same inside AsyncLocalStorage", iterations, () => storage.run(1, textStep)));
    add(
      await measure("StreamWriter alone: 96 `0:` + 7 `p:` + `d:` lines, drained", iterations, async () => {
        const writer = new StreamWriter({ framing: "sse", keepAliveMs: 0 });
        const drained = drain(writer.readable);
        for (let index = 0; index < 96; index++) writer.text("word ");
        writer.payment({ id: "disc_1", status: "discovering" });
        writer.payment({ id: "disc_1", status: "discovered" });
        for (const status of ["quoted", "signing", "verifying", "confirmed", "delivered"] as const) {
          writer.payment({ id: "pay_1", status, service: "weather", amount: "0.01", ...(status === "confirmed" ? { txHash: `0x${"ab".repeat(32)}` } : {}) });
        }
        writer.finish({ finishReason: "payment-complete", txHash: `0x${"ab".repeat(32)}`, payments: [] });
        await drained;
      }),
    );

    // What a paid turn leaves behind in the app's memory (the in-memory store keeps ledger
    // entries and idempotency records for 24 h): heap after a full GC, before and after.
    const heapTurns = options.heapTurns ?? 0;
    if (heapTurns > 0) {
      collectGarbage();
      const beforeBytes = process.memoryUsage().heapUsed;
      for (let done = 0; done < heapTurns; done += 50) await Promise.all(Array.from({ length: Math.min(50, heapTurns - done) }, () => chat(BUY_MESSAGE)));
      collectGarbage();
      const afterBytes = process.memoryUsage().heapUsed;
      retained = { turns: heapTurns, beforeBytes, afterBytes, perTurnBytes: (afterBytes - beforeBytes) / heapTurns };
      options.log?.(`  heap retained per paid turn: ${(retained.perTurnBytes / 1000).toFixed(1)} kB`);
    }
    await deps.store.close();
  } finally {
    console.info = info;
    await world.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  return { lines, retained };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const index = process.argv.indexOf("--iterations");
  const iterations = index >= 0 ? Number(process.argv[index + 1]) : 100;
  turnCpuBreakdown({ iterations, heapTurns: 200 }).then(
    ({ lines, retained }) => {
      if (retained)
        console.log(
          `heap after GC: ${(retained.beforeBytes / 1e6).toFixed(1)} MB before, ${(retained.afterBytes / 1e6).toFixed(1)} MB after ${retained.turns} paid turns (${(retained.perTurnBytes / 1000).toFixed(1)} kB per turn)`,
        );
      for (const line of lines)
        console.log(`${line.name.padEnd(80)} ${line.cpuMs.toFixed(2).padStart(7)} ms CPU ${line.wallMs.toFixed(2).padStart(8)} ms wall`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
