/**
 * `npm run bench:fetch`: what the guarded fetch adds to one request, next to the fetches it is
 * built from. A plain `node:http` server on 127.0.0.1 answers every request like an x402
 * service's first answer (402, a small JSON body, a `payment-required` header of about 1 KB);
 * the same GET is timed through
 *
 * - the global `fetch` (Node's bundled undici),
 * - `undici`'s `fetch` with a plain `Agent` (the package the guarded fetch uses),
 * - `createGuardedFetch({ allowlist: ["127.0.0.1"] })`.
 *
 * Each variant's body is read whole, as the guarded fetch does. Rounds are interleaved (each
 * round times every variant, the order rotating) and each round is reported on its own, so the
 * spread across rounds shows, not only the best one. Warm-up requests are not counted. Beside
 * the wall time, each round's CPU time per request (`process.cpuUsage`, both ends of the
 * loopback in this one process, GC threads included): on a machine shared with other work it
 * moves less than the wall time, which waits for the cores.
 *
 *   npm run bench:fetch -- --requests 2000 --rounds 3 --warmup 200
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { createGuardedFetch } from "../../lib/net/guarded-fetch";
import { wholeNumberFlag } from "./small-bench";
import { median, ms, summarize } from "./stats";

type Variant = { name: string; get: (url: string) => Promise<number> };

// About 1 KB of base64, the size of an x402 v2 `payment-required` header with one offer.
const PAYMENT_REQUIRED = Buffer.from(JSON.stringify({ x402Version: 2, padding: "x".repeat(720) })).toString("base64");
const BODY = JSON.stringify({ error: "payment required" });

function startServer(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(402, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(BODY),
      "payment-required": PAYMENT_REQUIRED,
    });
    response.end(BODY);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function timeRequests(variant: Variant, url: string, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const status = await variant.get(url);
    samples.push(performance.now() - started);
    if (status !== 402) throw new Error(`${variant.name}: expected 402, got ${status}`);
  }
  return samples;
}

async function main(): Promise<void> {
  const requests = Math.max(1, wholeNumberFlag("requests", 2000));
  const rounds = Math.max(1, wholeNumberFlag("rounds", 3));
  const warmup = wholeNumberFlag("warmup", 200);
  const server = await startServer();
  const plainAgent = new Agent();
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/weather?city=Lisbon`;
    const guardedFetch = createGuardedFetch({ allowlist: ["127.0.0.1"] });
    const variants: Variant[] = [
      { name: "global fetch", get: async (target) => drain(await fetch(target)) },
      { name: "undici fetch + Agent", get: async (target) => drain(await undiciFetch(target, { dispatcher: plainAgent })) },
      { name: "guarded fetch", get: async (target) => drain(await guardedFetch(target)) },
    ];
    for (const variant of variants) await timeRequests(variant, url, warmup);

    let connections = 0;
    server.on("connection", () => (connections += 1));
    const perRound = new Map<string, number[][]>(variants.map((variant) => [variant.name, []]));
    const cpuPerRound = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
    console.log(`${requests} sequential GETs per variant per round, ${rounds} rounds, ${warmup} warm-up each (Node ${process.version})`);
    for (let round = 0; round < rounds; round += 1) {
      const order = variants.map((_, index) => variants[(index + round) % variants.length] as Variant);
      for (const variant of order) {
        const connectionsBefore = connections;
        const cpuBefore = process.cpuUsage();
        const samples = await timeRequests(variant, url, requests);
        const cpu = process.cpuUsage(cpuBefore);
        const cpuPerRequest = (cpu.user + cpu.system) / 1000 / requests;
        perRound.get(variant.name)?.push(samples);
        cpuPerRound.get(variant.name)?.push(cpuPerRequest);
        const summary = summarize(samples);
        console.log(
          `round ${round + 1}  ${variant.name.padEnd(22)} median ${ms(summary.median)}  p95 ${ms(summary.p95)}  min ${ms(summary.min)}  max ${ms(summary.max)}  cpu ${ms3(cpuPerRequest)}/request  new connections ${connections - connectionsBefore}`,
        );
      }
    }
    console.log(
      "\nacross rounds (median of the rounds' medians, and each round's; p95, min, max of all requests; median of the rounds' CPU per request, and each round's)",
    );
    for (const variant of variants) {
      const roundSamples = perRound.get(variant.name) ?? [];
      const medians = roundSamples.map((samples) => median(samples));
      const all = summarize(roundSamples.flat());
      const cpu = cpuPerRound.get(variant.name) ?? [];
      console.log(
        `${variant.name.padEnd(22)} median ${ms3(median(medians))} (rounds ${medians.map(ms3).join(", ")})  p95 ${ms3(all.p95)}  min ${ms3(all.min)}  max ${ms(all.max)}  cpu ${ms3(median(cpu))}/request (rounds ${cpu.map(ms3).join(", ")})`,
      );
    }
  } finally {
    await plainAgent.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

/** Reads the body whole (as the guarded fetch does before it returns) and gives the status. */
async function drain(response: { status: number; arrayBuffer(): Promise<ArrayBuffer> }): Promise<number> {
  await response.arrayBuffer();
  return response.status;
}

/** Milliseconds to three decimals: the differences measured here are fractions of one. */
function ms3(value: number): string {
  return `${value.toFixed(3)} ms`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
