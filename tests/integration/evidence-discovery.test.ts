/**
 * Discovery that lists only what can be bought, against the local world's own failing listings
 * (devnet/README.md, "Listings that fail"): six tide-times listings alike in every word a buyer
 * matches on, the five that cannot deliver cheaper and listed first: a dead server
 * (tides-almanac), terms on another network only (tides-mainnet), a 402 asking ten times its
 * listing (tides-express), a 500 before any 402 (tides-direct), and one that settles the payment
 * on chain and answers 500 (tides-watch). The Bazaar is the local world's catalogue, served in its
 * order, with tides-watch held back until the last test. Over one database shared by two sets of
 * dependencies (two instances):
 *
 * - the chat turn and MCP `ask_agent` buy the real tides service; `discover_services` lists none
 *   of the failing ones (and lists them apart, with their reasons, when asked); nothing reaches
 *   their payees on chain;
 * - once tides-watch has taken our payment and delivered nothing, the next request for tides, on
 *   the other instance, buys from the real service.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "node:http";
import { getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import { decodeStream, type PaymentEvent, type StreamEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { close, listen, sendJson } from "../support/foreign-http";
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
type Listed = { name: string; resource: string; payTo: `0x${string}`; amount: bigint };

const REQUEST = "When is high tide in Brest?";
/** The local world's failing tide listings that a probe can tell, in its catalogue's order, with the reason each is left out for. */
const PROBED_FAILURES = {
  "tides-express": "price-above-listing",
  "tides-almanac": "unreachable",
  "tides-mainnet": "unpayable",
  "tides-direct": "failing",
} as const;
const catalogue: Record<"http" | "mcp", Item[]> = { http: [], mcp: [] };
/** Held back from the Bazaar until the last test. */
let takerItem: Item;

const database = lazyDatabase({ kind: "pglite" });
let harness: ChatHarness;
/** A second instance: its own discovery, prober and caches, the same database. */
let other: AppDependencies;
let bazaar: { server: Server; origin: string };
let real: Listed;
let taker: Listed;
let failing: Listed[];

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

beforeAll(async () => {
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
    env: { DISCOVERY_PROBES: "true" },
    store: createDatabaseStore(database),
    network: async (devnet) => {
      const [http, mcp] = await Promise.all([devnetItems(devnet.facilitatorUrl, "http"), devnetItems(devnet.facilitatorUrl, "mcp")]);
      const listed = (name: string): Listed => {
        const service = devnet.services.find((entry) => entry.name === name)!;
        const item = http.find((entry) => entry.resource === service.url)!;
        return { name, resource: item.resource, payTo: getAddress(String(item.accepts[0]!.payTo)), amount: BigInt(String(item.accepts[0]!.amount)) };
      };
      real = listed("tides");
      taker = listed("tides-watch");
      failing = Object.keys(PROBED_FAILURES).map(listed);
      takerItem = http.find((item) => item.resource === taker.resource)!;
      catalogue.http = http.filter((item) => item !== takerItem);
      catalogue.mcp = mcp;
      return { facilitatorUrl: bazaar.origin };
    },
  });
  other = createAppDependencies(harness.env, { network: harness.deps.network, store: createDatabaseStore(database), baseModel: harness.deps.baseModel });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await database.close();
  if (bazaar) await close(bazaar.server);
});

async function expectPaidToRealService(txHash: string | null | undefined) {
  expect(txHash).toMatch(/^0x/);
  const agent = getAddress(harness.devnet.accounts.agent.address);
  expect(await usdcTransfers(harness.devnet, txHash as Hex)).toEqual([[agent, getAddress(real.payTo), real.amount]]);
}

/** On chain: nothing reached a failing listing's payee (the taker's, once it is listed, only what it took). */
async function expectNothingPaidToTheFailing(takerTook = 0n) {
  for (const listing of failing) expect(await harness.usdcBalance(listing.payTo), listing.name).toBe(0n);
  expect(await harness.usdcBalance(taker.payTo), taker.name).toBe(takerTook);
}

/** A chat turn on the other instance. */
async function chatOnOther(content: string) {
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(userMessage(content)) }),
    () => other,
  );
  const events: StreamEvent[] = [];
  for await (const item of decodeStream(response.body!)) if (item.kind === "event") events.push(item.event);
  return {
    payments: events.flatMap((event) => (event.type === "payment" ? [event.payment] : [])),
    finish: events.flatMap((event) => (event.type === "finish" ? [event.finish] : [])).at(-1),
  };
}

const FAILING_COUNTS = { unreachable: 1, unpayable: 1, "price-above-listing": 1, failing: 1 };
const failingResources = () => failing.map((listing) => listing.resource);

describe("discovery against a Bazaar that lists each of the local world's failing listings first", () => {
  it("the catalogue lists the failing tide listings first, each cheaper than the real one", () => {
    const tides = search(REQUEST, catalogue.http).map((item) => item.resource);
    expect(tides.slice(0, failing.length)).toEqual(failingResources());
    expect(tides).toContain(real.resource);
    for (const listing of [...failing, taker]) expect(listing.amount).toBeLessThan(real.amount);
  });

  it("the chat turn buys from the real tides service, and the page is told what was left out and why", async () => {
    const result = await harness.chat(userMessage(REQUEST));
    expect(result.finish, result.text).toMatchObject({ finishReason: "payment-complete" });
    const discovered = result.payments.find((payment) => payment.status === "discovered") as PaymentEvent;
    const listed = (discovered.services ?? []).map((service) => service.resource);
    for (const resource of failingResources()) expect(listed).not.toContain(resource);
    expect(discovered.dropped).toMatchObject(FAILING_COUNTS);
    expect(discovered.message).toMatch(/Left out listings that cannot be bought now/);
    // The real service is listed with when it was checked.
    expect(discovered.services?.find((service) => service.resource === real.resource)?.evidence?.checkedAt).toEqual(expect.any(Number));
    const delivered = result.payments.find((payment) => payment.status === "delivered") as PaymentEvent;
    expect(delivered.resource?.startsWith(real.resource)).toBe(true);
    await expectPaidToRealService(result.finish?.txHash);
    await expectNothingPaidToTheFailing();
  });

  describe("over MCP", () => {
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 55_000 })) as CallToolResult & { structuredContent: Record<string, unknown> };

    beforeAll(async () => {
      const route = (url: string | URL, init?: RequestInit) => handleMcpRequest(new Request(url, init), () => harness.deps);
      client = new Client({ name: "evidence-discovery-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1/api/mcp"), { fetch: route }));
    });
    afterAll(async () => {
      await client?.close();
    });

    it("discover_services lists none of the failing ones, and lists them apart with their reasons when asked", async () => {
      const found = await call("discover_services", { query: "high tide" });
      const resources = (found.structuredContent.services as { resource: string }[]).map((service) => service.resource);
      expect(resources).toContain(real.resource);
      for (const resource of failingResources()) expect(resources).not.toContain(resource);
      expect(found.structuredContent.excluded).toBeUndefined();
      const apart = await call("discover_services", { query: "high tide", includeExcluded: true });
      const excluded = apart.structuredContent.excluded as { resource: string; reason: string; checkedAt?: string }[];
      const reasonOf = (resource: string) => excluded.find((entry) => entry.resource === resource)?.reason;
      expect(Object.fromEntries(failing.map((listing) => [listing.name, reasonOf(listing.resource)]))).toEqual(PROBED_FAILURES);
      expect(excluded.every((entry) => typeof entry.checkedAt === "string")).toBe(true);
      expect(apart.structuredContent.droppedNote).toMatch(
        /1 asking more than they list, 1 that did not answer, 1 whose terms this deployment cannot pay, 1 failing before any payment/,
      );
    });

    it("ask_agent buys from the real tides service", async () => {
      const turn = await call("ask_agent", { prompt: "When is high tide in Roscoff?" });
      expect(turn.structuredContent).toMatchObject({ finishReason: "payment-complete" });
      const payments = turn.structuredContent.payments as { resource?: string }[];
      expect(payments).toHaveLength(1);
      expect(payments[0]?.resource?.startsWith(real.resource)).toBe(true);
      await expectPaidToRealService(String(turn.structuredContent.txHash));
      await expectNothingPaidToTheFailing();
    });
  });

  it("after a listing takes a payment and delivers nothing, the next request, on another instance, buys from one that delivers", async () => {
    // Now listed, cheaper than the real one and answering its 402 like it: nothing tells it apart before our money does.
    catalogue.http = [takerItem, ...catalogue.http];
    const first = await harness.chat(userMessage("When is high tide in Brest tomorrow?"));
    expect(first.payments.some((payment) => payment.status === "confirmed" && payment.resource?.startsWith(taker.resource))).toBe(true);
    expect(first.payments.some((payment) => payment.status === "delivered")).toBe(false);
    // Settled on chain: the taker's payee holds what it took.
    await expectNothingPaidToTheFailing(taker.amount);

    // Another harbour: the same request again would be answered from the journal (at most once), not bought again.
    const next = await chatOnOther("When is high tide in Cherbourg?");
    expect(next.finish).toMatchObject({ finishReason: "payment-complete" });
    const delivered = next.payments.find((payment) => payment.status === "delivered") as PaymentEvent;
    expect(delivered.resource?.startsWith(real.resource)).toBe(true);
    await expectPaidToRealService(next.finish?.txHash);
    const listed = next.payments.find((payment) => payment.status === "discovered")?.services ?? [];
    expect(listed.find((service) => service.resource === taker.resource)?.evidence).toMatchObject({ failedAfterPayment: 1, delivered: 0 });
    await expectNothingPaidToTheFailing(taker.amount);
  });
});
