/**
 * Discovery that lists only what can be bought, against the local world and a Bazaar that lists,
 * first and cheaper, a copy of its weather service for each way a listing fails: a dead server,
 * terms on another network, a price above its listing, a 500 before the 402, and one that takes
 * the payment and answers 500. Over one database shared by two sets of dependencies (two
 * instances):
 *
 * - the chat turn and MCP `ask_agent` buy the real weather service; `discover_services` lists
 *   none of the failing ones (and lists them apart, with their reasons, when asked); nothing is
 *   paid to them;
 * - once the one that takes payment has taken ours and delivered nothing, the next request for
 *   the weather, on the other instance, buys from the real service.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "node:http";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import { decodeStream, type PaymentEvent, type StreamEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { close, listen, sendJson } from "../support/foreign-http";
import { exactUsdcOption, hostileWorldOf, startHostileService, type HostileService } from "../support/hostile-service";
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
/** Whoever listed the failing copies is paid here if anything is paid to them. */
const failingPayee = privateKeyToAccount(generatePrivateKey()).address;
/** The copy that takes payment and answers 500 is paid here. */
const takerPayee = privateKeyToAccount(generatePrivateKey()).address;
const LISTED = "1000";
const catalogue: Record<"http" | "mcp", Item[]> = { http: [], mcp: [] };

const database = lazyDatabase({ kind: "pglite" });
let harness: ChatHarness;
/** A second instance: its own discovery, prober and caches, the same database. */
let other: AppDependencies;
let bazaar: { server: Server; origin: string };
let failing: { unpayable: HostileService; dearer: HostileService; taker: HostileService };
let errors: { server: Server; origin: string; requests: number };
let deadOrigin: string;
let real: { resource: string; payTo: string; amount: bigint };

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

/** A copy of the weather listing at another address, cheaper, paying someone else. */
function copyOf(listing: Item, resource: string, payTo: string = failingPayee): Item {
  return { ...listing, resource, accepts: listing.accepts.map((option) => ({ ...option, amount: LISTED, payTo })) };
}

beforeAll(async () => {
  const weatherRoute = (accepts: Parameters<typeof exactUsdcOption>[1], afterPayment?: { answer: "500"; settle: "now" }) => ({
    "/weather": { accepts: (world: Parameters<typeof exactUsdcOption>[0]) => [exactUsdcOption(world, accepts)], ...(afterPayment ? { afterPayment } : {}) },
  });
  failing = {
    unpayable: await startHostileService(weatherRoute({ amount: LISTED, payTo: failingPayee, network: "eip155:8453" })),
    dearer: await startHostileService(weatherRoute({ amount: "100000", payTo: failingPayee })),
    taker: await startHostileService(weatherRoute({ amount: LISTED, payTo: takerPayee }, { answer: "500", settle: "now" })),
  };
  const errorServer = await listen(async (_request, response) => {
    errors.requests += 1;
    sendJson(response, 500, { error: "internal" });
  });
  errors = { ...errorServer, requests: 0 };
  const dead = await listen();
  deadOrigin = dead.origin;
  await close(dead.server);
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
  const ports = [failing.unpayable.port, failing.dearer.port, failing.taker.port, new URL(errors.origin).port, new URL(deadOrigin).port];
  harness = await startChatHarness({
    env: { DISCOVERY_PROBES: "true", OUTBOUND_ALLOWLIST: ports.map((port) => `127.0.0.1:${port}`).join(",") },
    store: createDatabaseStore(database),
    network: async (devnet) => {
      const [http, mcp] = await Promise.all([devnetItems(devnet.facilitatorUrl, "http"), devnetItems(devnet.facilitatorUrl, "mcp")]);
      const weatherUrl = devnet.services.find((service) => service.name === "weather")!.url;
      const weather = http.find((item) => item.resource === weatherUrl)!;
      real = { resource: weather.resource, payTo: String(weather.accepts[0]!.payTo), amount: BigInt(String(weather.accepts[0]!.amount)) };
      catalogue.http = [
        copyOf(weather, `${deadOrigin}/weather`),
        copyOf(weather, failing.unpayable.url("/weather")),
        copyOf(weather, failing.dearer.url("/weather")),
        copyOf(weather, `${errors.origin}/weather`),
        ...http,
      ];
      catalogue.mcp = mcp;
      return { facilitatorUrl: bazaar.origin };
    },
  });
  for (const service of Object.values(failing)) service.configure(hostileWorldOf(harness.devnet, harness.devnet));
  other = createAppDependencies(harness.env, { network: harness.deps.network, store: createDatabaseStore(database), baseModel: harness.deps.baseModel });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await database.close();
  await Promise.all([...Object.values(failing ?? {}).map((service) => service.close()), bazaar && close(bazaar.server), errors && close(errors.server)]);
});

async function expectPaidToRealService(txHash: string | null | undefined) {
  expect(txHash).toMatch(/^0x/);
  const agent = getAddress(harness.devnet.accounts.agent.address);
  expect(await usdcTransfers(harness.devnet, txHash as Hex)).toEqual([[agent, getAddress(real.payTo), real.amount]]);
}

async function expectNothingPaidToTheFailing() {
  expect(await harness.usdcBalance(failingPayee)).toBe(0n);
  for (const service of [failing.unpayable, failing.dearer]) expect(service.requests.filter((request) => request.hasPayment)).toEqual([]);
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

const FAILING_COUNTS = { unreachable: expect.any(Number), unpayable: expect.any(Number), "price-above-listing": 1, failing: 1 };

describe("discovery against a Bazaar that lists each kind of failing service first", () => {
  it("the chat turn buys from the real weather service, and the page is told what was left out and why", async () => {
    const result = await harness.chat(userMessage(REQUEST));
    expect(result.finish, result.text).toMatchObject({ finishReason: "payment-complete" });
    const discovered = result.payments.find((payment) => payment.status === "discovered") as PaymentEvent;
    const listed = (discovered.services ?? []).map((service) => service.resource);
    for (const item of catalogue.http.slice(0, 4)) expect(listed).not.toContain(item.resource);
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
      const found = await call("discover_services", { query: "weather" });
      const resources = (found.structuredContent.services as { resource: string }[]).map((service) => service.resource);
      expect(resources).toContain(real.resource);
      for (const item of catalogue.http.slice(0, 4)) expect(resources).not.toContain(item.resource);
      expect(found.structuredContent.excluded).toBeUndefined();
      const apart = await call("discover_services", { query: "weather", includeExcluded: true });
      const excluded = apart.structuredContent.excluded as { resource: string; reason: string; checkedAt?: string }[];
      const reasonOf = (resource: string) => excluded.find((entry) => entry.resource === resource)?.reason;
      expect(catalogue.http.slice(0, 4).map((item) => reasonOf(item.resource))).toEqual(["unreachable", "unpayable", "price-above-listing", "failing"]);
      expect(excluded.every((entry) => typeof entry.checkedAt === "string")).toBe(true);
      expect(apart.structuredContent.droppedNote).toMatch(/1 asking more than they list, 1 failing before any payment/);
    });

    it("ask_agent buys from the real weather service", async () => {
      const turn = await call("ask_agent", { prompt: REQUEST });
      expect(turn.structuredContent).toMatchObject({ finishReason: "payment-complete" });
      const payments = turn.structuredContent.payments as { resource?: string }[];
      expect(payments).toHaveLength(1);
      expect(payments[0]?.resource?.startsWith(real.resource)).toBe(true);
      await expectPaidToRealService(String(turn.structuredContent.txHash));
      await expectNothingPaidToTheFailing();
    });
  });

  it("after a listing takes a payment and delivers nothing, the next request, on another instance, buys from one that delivers", async () => {
    // Listed first and cheapest, answering its 402 like the real one: nothing tells it apart before our money does.
    const taker = copyOf(
      catalogue.http.find((item) => item.resource === real.resource)!,
      failing.taker.url("/weather"),
      takerPayee,
    );
    catalogue.http = [taker, ...catalogue.http.slice(4)];
    const first = await harness.chat(userMessage("What is the weather in Porto?"));
    expect(first.payments.some((payment) => payment.status === "confirmed" && payment.resource?.startsWith(taker.resource))).toBe(true);
    expect(first.payments.some((payment) => payment.status === "delivered")).toBe(false);
    await failing.taker.settled();
    expect(await harness.usdcBalance(takerPayee)).toBe(BigInt(LISTED));

    // Another city: the same request again would be answered from the journal (at most once), not bought again.
    const next = await chatOnOther("What is the weather in Faro?");
    expect(next.finish).toMatchObject({ finishReason: "payment-complete" });
    const delivered = next.payments.find((payment) => payment.status === "delivered") as PaymentEvent;
    expect(delivered.resource?.startsWith(real.resource)).toBe(true);
    await expectPaidToRealService(next.finish?.txHash);
    const listed = next.payments.find((payment) => payment.status === "discovered")?.services ?? [];
    expect(listed.find((service) => service.resource === taker.resource)?.evidence).toMatchObject({ failedAfterPayment: 1, delivered: 0 });
    expect(await harness.usdcBalance(takerPayee)).toBe(BigInt(LISTED));
  });
});
