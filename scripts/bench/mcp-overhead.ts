/**
 * `npm run bench:mcp`: the same purchase (the local world's weather, 0.01 USDC, the agent
 * wallet) asked for two ways, side by side, against the app's own handlers in process (the
 * chat route's and the MCP route's, wired as the routes wire them, one memory store):
 *
 * - chat: POST /api/chat asking the demo model for the weather; timed from the request to the
 *   `delivered` payment event on the stream (and, separately, to the end of the turn);
 * - MCP: `tools/call buy` of the weather URL through the official MCP client (Streamable HTTP),
 *   with a fresh idempotencyKey; timed from the call to its result.
 *
 * Each iteration asks for a different city (a repeated chat question would be answered as a
 * retry of the paid one); the order alternates. Warm-up runs are not counted.
 *
 *   npm run bench:mcp -- --runs 11 --warmup 2
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { startChatHarness } from "../../tests/support/chat-harness";
import { median, ms, percentile } from "./stats";

const MCP_URL = "http://127.0.0.1:3000/api/mcp";
const CITIES = [
  "Lisbon",
  "Porto",
  "Tokyo",
  "Oslo",
  "Quito",
  "Accra",
  "Lima",
  "Hanoi",
  "Perth",
  "Cairo",
  "Dakar",
  "Seoul",
  "Riga",
  "Baku",
  "Doha",
  "Kyiv",
  "Rome",
  "Bern",
  "Nice",
  "Turin",
  "Milan",
  "Paris",
  "Ghent",
  "Bonn",
];

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}

function spread(values: readonly number[]): string {
  return `| ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} | ${ms(percentile(values, 90))} |`;
}

async function main(): Promise<void> {
  const runs = Math.max(11, argument("runs", 11));
  const warmup = argument("warmup", 2);
  if (runs + warmup > CITIES.length) throw new Error(`at most ${CITIES.length} runs and warm-ups together`);
  const harness = await startChatHarness({ env: { LIMIT_DEFAULT_DAILY: "100000", LIMIT_MAX_DAILY: "100000" } });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: (url, init) => handleMcpRequest(new Request(url, init), () => harness.deps) });
  const client = new Client({ name: "bench-mcp", version: "1.0.0" });
  try {
    await client.connect(transport);
    const weather = harness.devnet.services.find((service) => service.name === "weather")?.url;
    if (!weather) throw new Error("the local world has no weather service");

    const chat = async (city: string) => {
      let delivered: number | undefined;
      const started = performance.now();
      const result = await harness.chat(
        { messages: [{ role: "user", content: `What's the weather in ${city}?` }] },
        {
          onEvent: (event) => {
            if (event.type === "payment" && event.payment.status === "delivered") delivered ??= performance.now() - started;
          },
        },
      );
      if (delivered === undefined || !result.finish?.txHash) throw new Error(`chat (${city}): no delivered purchase: ${result.text.slice(0, 200)}`);
      return { delivered, turn: result.elapsedMs };
    };
    let key = 0;
    const mcp = async (city: string) => {
      const started = performance.now();
      const result = (await client.callTool(
        { name: "buy", arguments: { url: `${weather}?city=${city}`, idempotencyKey: `bench-${process.pid}-${(key += 1)}` } },
        undefined,
        { timeout: 55_000 },
      )) as {
        structuredContent?: { status?: string; message?: string };
      };
      const elapsed = performance.now() - started;
      if (result.structuredContent?.status !== "paid") throw new Error(`MCP buy (${city}): ${JSON.stringify(result.structuredContent).slice(0, 300)}`);
      return elapsed;
    };

    const cities = [...CITIES];
    for (let index = 0; index < warmup; index += 1) {
      await chat(cities.shift()!);
      await mcp(cities.shift()!);
    }
    const samples = { chatDelivered: [] as number[], chatTurn: [] as number[], mcp: [] as number[] };
    for (let index = 0; index < runs; index += 1) {
      const city = cities[index]!;
      const viaChat = async () => {
        const timed = await chat(city);
        samples.chatDelivered.push(timed.delivered);
        samples.chatTurn.push(timed.turn);
      };
      const viaMcp = async () => void samples.mcp.push(await mcp(city));
      // Each city is bought once each way; which goes first alternates.
      if (index % 2 === 0) {
        await viaChat();
        await viaMcp();
      } else {
        await viaMcp();
        await viaChat();
      }
    }

    const difference = median(samples.chatDelivered) - median(samples.mcp);
    console.log(
      `The weather (0.01 USDC, agent wallet) bought ${runs} times each way on the local world, in process, interleaved (after ${warmup} warm-up each):`,
    );
    console.log("| path | median | min | max | p90 |");
    console.log("|---|---|---|---|---|");
    console.log(`| POST /api/chat (demo model), to the delivered event ${spread(samples.chatDelivered)}`);
    console.log(`| POST /api/chat (demo model), to the end of the turn ${spread(samples.chatTurn)}`);
    console.log(`| MCP tools/call buy, to the result ${spread(samples.mcp)}`);
    console.log(`Median difference (chat to delivered minus MCP buy): ${ms(difference)}.`);
  } finally {
    await client.close().catch(() => undefined);
    await harness.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
