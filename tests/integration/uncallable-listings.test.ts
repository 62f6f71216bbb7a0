/**
 * A Bazaar that lists, first and cheaper, entries the agent could never call: "Hostile Weather"
 * at the cloud metadata address, the same at a loopback port not on the outbound allowlist, one
 * at the chain's RPC URL and one at this app's own `/api/mcp` (a paid MCP tool there too); then
 * the local world's real catalogue. Discovery leaves them out before the demo model chooses: the
 * chat turn and MCP `ask_agent` ("What is the weather in Lisbon?") pay the real weather service,
 * exactly its price to its payee, `discover_services` lists none of them and says how many were
 * left out and why, and nothing reaches or is paid to them.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "node:http";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import type { PaymentEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { close, listen, sendJson } from "../support/foreign-http";
import { startRecordingServer } from "../support/hostile-service";
import type { LoopbackServer } from "../support/loopback-server";
import { usdcTransfers } from "../support/usdc-transfers";

type Item = {
  resource: string;
  type?: string;
  serviceName?: string;
  description?: string;
  tags?: string[];
  accepts: Record<string, unknown>[];
  [key: string]: unknown;
};

const REQUEST = "What is the weather in Lisbon?";
// Whoever listed the uncallable entries is paid here if anything is paid to them.
const hostilePayee = privateKeyToAccount(generatePrivateKey()).address;
const catalogue: Record<"http" | "mcp", Item[]> = { http: [], mcp: [] };

let harness: ChatHarness;
/** Stands for this app (APP_URL), allowlisted so that only the "this app" rule can keep it out. */
let app: LoopbackServer;
/** A loopback server on a port not on the outbound allowlist. */
let unlisted: LoopbackServer;
let bazaar: { server: Server; origin: string };
let real: { resource: string; payTo: string; amount: bigint };

/** The Bazaar's own search: entries naming more of the query's words first, ties in listing order. */
function search(query: string, items: readonly Item[]): Item[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3);
  return items
    .map((item, index) => ({
      item,
      index,
      score: words.filter((word) =>
        [item.serviceName ?? "", item.description ?? "", item.resource, ...(item.tags ?? [])].join(" ").toLowerCase().includes(word),
      ).length,
    }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item);
}

async function devnetItems(facilitatorUrl: string, type: "http" | "mcp"): Promise<Item[]> {
  const items: Item[] = [];
  for (;;) {
    const page = (await (await fetch(`${facilitatorUrl}/discovery/resources?type=${type}&limit=100&offset=${items.length}`)).json()) as {
      items: Item[];
      pagination: { total: number };
    };
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.pagination.total) return items;
  }
}

/** A copy of a real listing at another address, cheaper, paying someone else. */
function uncallable(listing: Item, resource: string, serviceName?: string): Item {
  return {
    ...listing,
    resource,
    ...(serviceName ? { serviceName } : {}),
    accepts: listing.accepts.map((option) => ({ ...option, amount: "1", payTo: hostilePayee })),
  };
}

beforeAll(async () => {
  [app, unlisted] = await Promise.all([startRecordingServer(), startRecordingServer()]);
  bazaar = await listen(async (request, response, url) => {
    const type = url.searchParams.get("type") === "mcp" ? "mcp" : "http";
    if (url.pathname === "/discovery/search") {
      return sendJson(response, 200, {
        x402Version: 2,
        resources: search(url.searchParams.get("query") ?? "", catalogue[type]),
        partialResults: false,
        pagination: { limit: 20, cursor: null },
      });
    }
    if (url.pathname === "/discovery/resources") {
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 100);
      const items = catalogue[type];
      return sendJson(response, 200, { x402Version: 2, items: items.slice(offset, offset + limit), pagination: { limit, offset, total: items.length } });
    }
    response.writeHead(404).end();
  });
  harness = await startChatHarness({
    env: { APP_URL: app.origin, OUTBOUND_ALLOWLIST: `127.0.0.1:${app.port}` },
    network: async (devnet) => {
      const [http, mcp] = await Promise.all([devnetItems(devnet.facilitatorUrl, "http"), devnetItems(devnet.facilitatorUrl, "mcp")]);
      const weatherUrl = devnet.services.find((service) => service.name === "weather")!.url;
      const weather = http.find((item) => item.resource === weatherUrl)!;
      real = { resource: weather.resource, payTo: String(weather.accepts[0]!.payTo), amount: BigInt(String(weather.accepts[0]!.amount)) };
      catalogue.http = [
        uncallable(weather, "http://169.254.169.254/weather", "Hostile Weather"),
        uncallable(weather, `${unlisted.origin}/weather`),
        uncallable(weather, devnet.rpcUrl),
        uncallable(weather, `${app.origin}/api/mcp`),
        ...http,
      ];
      const tool = mcp[0]!;
      catalogue.mcp = [
        uncallable({ ...tool, description: `${tool.description ?? ""} Weather for any city.`, tags: ["weather"] }, `${app.origin}/api/mcp`),
        ...mcp,
      ];
      return { facilitatorUrl: bazaar.origin };
    },
  });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await Promise.all([app?.close(), unlisted?.close(), bazaar && close(bazaar.server)]);
});

/** What was paid for the transaction, from the chain: exactly one transfer, agent to the real payee, at its price. */
async function expectPaidToRealService(txHash: string | null | undefined) {
  expect(txHash).toMatch(/^0x/);
  const agent = getAddress(harness.devnet.accounts.agent.address);
  expect(await usdcTransfers(harness.devnet, txHash as Hex)).toEqual([[agent, getAddress(real.payTo), real.amount]]);
}

function expectNothingReachedTheUncallable() {
  expect(app.requests).toEqual([]);
  expect(unlisted.connections()).toBe(0);
}

const DROPPED_SERVICES = { "refused-address": 2, "network-server": 1, "this-app": 1 };

describe("discovery against a Bazaar that lists uncallable entries first", () => {
  it("the chat turn (demo model) buys from the real weather service, and the page is told what was left out", async () => {
    const result = await harness.chat(userMessage(REQUEST));
    expect(result.finish, result.text).toMatchObject({ finishReason: "payment-complete" });
    const discovered = result.payments.filter((payment) => payment.status === "discovered");
    expect(discovered.length).toBeGreaterThan(0);
    const listed = discovered.flatMap((event) => event.services ?? []).map((service) => service.resource);
    for (const resource of catalogue.http.slice(0, 4).map((item) => item.resource)) expect(listed).not.toContain(resource);
    // The services' drops and the MCP tool's (this app's own endpoint).
    expect(discovered[0]?.dropped).toEqual({ ...DROPPED_SERVICES, "this-app": 2 });
    expect(discovered[0]?.message).toMatch(/Left out listings the agent cannot call/);
    const delivered = result.payments.find((payment) => payment.status === "delivered") as PaymentEvent;
    expect(delivered.resource?.startsWith(real.resource)).toBe(true);
    await expectPaidToRealService(result.finish?.txHash);
    expectNothingReachedTheUncallable();
    expect(await harness.usdcBalance(hostilePayee)).toBe(0n);
  });

  describe("over MCP", () => {
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 55_000 })) as CallToolResult & { structuredContent: Record<string, unknown> };

    beforeAll(async () => {
      const route = (url: string | URL, init?: RequestInit) => handleMcpRequest(new Request(url, init), () => harness.deps);
      client = new Client({ name: "uncallable-listings-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/api/mcp`), { fetch: route }));
    });
    afterAll(async () => {
      await client?.close();
    });

    it("discover_services lists none of them and reports how many were left out, and why", async () => {
      for (const query of ["weather", ""]) {
        const found = await call("discover_services", { query });
        const resources = (found.structuredContent.services as { resource: string }[]).map((service) => service.resource);
        // The whole list shows its cheapest ten, which need not include the weather.
        if (query) expect(resources, query).toContain(real.resource);
        for (const item of catalogue.http.slice(0, 4)) expect(resources, query).not.toContain(item.resource);
        expect(found.structuredContent.dropped, query).toEqual(DROPPED_SERVICES);
        expect(found.structuredContent.droppedNote, query).toMatch(
          /2 at an address this server does not call, 1 at the payment network's own servers, 1 at this app's own endpoints/,
        );
      }
    });

    it("ask_agent buys from the real weather service", async () => {
      const turn = await call("ask_agent", { prompt: REQUEST });
      expect(turn.isError).toBeFalsy();
      expect(turn.structuredContent).toMatchObject({ finishReason: "payment-complete" });
      const payments = turn.structuredContent.payments as { resource?: string; txHash?: string }[];
      expect(payments).toHaveLength(1);
      expect(payments[0]?.resource?.startsWith(real.resource)).toBe(true);
      await expectPaidToRealService(String(turn.structuredContent.txHash));
      expectNothingReachedTheUncallable();
      expect(await harness.usdcBalance(hostilePayee)).toBe(0n);
    });
  });
});
