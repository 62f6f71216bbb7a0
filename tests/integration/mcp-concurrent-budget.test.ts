/**
 * An API key's daily budget under concurrent `buy` calls over MCP: six official MCP clients,
 * each with the same key, each buying the local world's weather at once with its own
 * idempotency key. The key's budget fits three purchases: exactly three are paid, the other
 * three refused over the budget with nothing signed, and the chain moved exactly three prices.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { parseEnv } from "../../lib/env";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

const MCP_URL = "http://127.0.0.1:3000/api/mcp";
const CENT = parseUnits("0.01", 6);
const CALLS = 6;
const FITS = 3;
const CITIES = ["Quito", "Accra", "Oslo", "Lima", "Hanoi", "Perth"];

let harness: ChatHarness;
let keyed: AppDependencies;

beforeAll(async () => {
  harness = await startChatHarness();
  keyed = createAppDependencies(parseEnv({ DEMO_MODEL_CHUNK_DELAY_MS: "0", RATE_LIMIT_REQUESTS: "10000", AGENT_WALLET_ACCESS: "authenticated" }), {
    network: harness.deps.network,
    store: harness.deps.store,
    baseModel: harness.deps.baseModel,
  });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: (url, init) => handleMcpRequest(new Request(url, init), () => keyed),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "concurrent-buyer", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

it(`pays exactly ${FITS} of ${CALLS} concurrent buys under a key whose daily budget fits ${FITS}`, async () => {
  expect(CITIES).toHaveLength(CALLS);
  const { key, token } = await harness.deps.store.apiKeys.create({ name: "burst", budget: { perPayment: CENT, perRequest: CENT, daily: CENT * BigInt(FITS) } });
  const agent = harness.devnet.accounts.agent.address as `0x${string}`;
  const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
  const weather = harness.devnet.services.find((service) => service.name === "weather")?.url;
  const before = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);

  const clients = await Promise.all(CITIES.map(() => connect(token)));
  try {
    const results = (await Promise.all(
      clients.map((client, index) =>
        client.callTool({ name: "buy", arguments: { url: `${weather}?city=${CITIES[index]}`, idempotencyKey: `burst-${index}` } }, undefined, {
          timeout: 55_000,
        }),
      ),
    )) as CallToolResult[];
    const outcomes = results.map((result) => result.structuredContent as Record<string, unknown>);
    const paid = outcomes.filter((outcome) => outcome.status === "paid");
    const refused = outcomes.filter((outcome) => outcome.status !== "paid");
    expect(paid, JSON.stringify(outcomes.map((outcome) => [outcome.status, outcome.reason]))).toHaveLength(FITS);
    expect(new Set(paid.map((outcome) => outcome.txHash)).size).toBe(FITS);
    for (const outcome of refused) {
      expect(outcome).toMatchObject({ status: "failed", reason: "limit-exceeded" });
      expect(outcome.message).toMatch(/daily limit of the API key “burst”'s budget/);
      expect(outcome.txHash).toBeUndefined();
    }
    const moved = CENT * BigInt(FITS);
    expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)])).toEqual([before[0]! - moved, before[1]! + moved]);
    expect(await harness.deps.store.ledger.spentInScope(`key:${key.id}`)).toEqual({ settled: moved, reserved: 0n });
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}, 90_000);
