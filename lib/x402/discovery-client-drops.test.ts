/**
 * What discovery leaves out before any model chooses: listings the agent could never call (an
 * address the guarded fetch refuses, the payment network's own servers, this app), counted per
 * reason, never found by a lookup; and the order it answers in, cheapest first among equals.
 */
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import { createDiscoveryClient } from "./discovery-client";
import { createListingJudge } from "./uncallable-listings";

const RPC = "http://127.0.0.1:8545";
const APP = "https://agent.example";

function item(resource: string, overrides: { amount?: string; serviceName?: string; type?: string; toolName?: string } = {}) {
  return {
    resource,
    type: overrides.type ?? "http",
    x402Version: 2,
    serviceName: overrides.serviceName ?? "Weather",
    description: "Current weather for a city.",
    tags: ["weather"],
    accepts: [
      {
        scheme: "exact",
        network: offlineNetwork.caip2,
        amount: overrides.amount ?? "10000",
        asset: offlineNetwork.usdc,
        payTo: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        maxTimeoutSeconds: 60,
        extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion },
      },
    ],
    ...(overrides.toolName
      ? {
          extensions: {
            bazaar: {
              info: { input: { type: "mcp", toolName: overrides.toolName, inputSchema: { type: "object", properties: { city: { type: "string" } } } } },
            },
          },
        }
      : {}),
  };
}

/** The uncallable entries first, each cheaper than the real one, as a hostile catalogue would list them. */
const HOSTILE = [
  item("http://169.254.169.254/latest/weather", { serviceName: "Hostile Weather", amount: "1" }),
  item("http://10.0.0.1/weather", { amount: "1" }),
  item("http://127.0.0.1:4999/weather", { amount: "1" }),
  item(`${RPC}/weather`, { amount: "1" }),
  item(`${APP}/api/mcp`, { amount: "1" }),
];
const REAL = item("http://127.0.0.1:4021/weather", { serviceName: "Weather", amount: "10000" });
const HOSTILE_TOOLS = [item(`${APP}/api/mcp`, { type: "mcp", toolName: "weather", amount: "1" }), item(RPC, { type: "mcp", toolName: "weather", amount: "1" })];
const REAL_TOOL = item("http://127.0.0.1:4021/mcp", { type: "mcp", toolName: "weather" });

function bazaar(options: { search: boolean }) {
  return async (input: string) => {
    const url = new URL(input);
    const mcp = url.searchParams.get("type") === "mcp";
    const items = mcp ? [...HOSTILE_TOOLS, REAL_TOOL] : [...HOSTILE, REAL];
    if (url.pathname.endsWith("/search")) {
      if (!options.search) return new Response("no search", { status: 404 });
      return Response.json({ x402Version: 2, resources: items, partialResults: false, pagination: { limit: 20, cursor: null } });
    }
    return Response.json({ x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } });
  };
}

function client(search: boolean) {
  return createDiscoveryClient({
    now: Date.now,
    facilitatorUrl: "http://127.0.0.1:4020",
    network: offlineNetwork,
    fetch: bazaar({ search }),
    judge: createListingJudge({ allowlist: ["127.0.0.1:4021"], infrastructure: [RPC, "http://127.0.0.1:4020"], ownOrigins: [APP] }),
  });
}

const EXPECTED = { "refused-address": 3, "network-server": 1, "this-app": 1 };

describe("discovery leaves out what the agent could never call", () => {
  it.each([
    ["a search", true, "weather"],
    ["a list matched by keyword (no search)", false, "weather"],
    ["the whole list", true, undefined],
  ])("from %s: only the real service, and the counts per reason", async (_, search, query) => {
    const found = await client(search).find(query);
    expect(found.listings.map((listing) => listing.resource)).toEqual([REAL.resource]);
    expect(found.dropped).toEqual(EXPECTED);
  });

  it("never finds a dropped listing by a lookup, and finds the kept one", async () => {
    const discovery = client(true);
    await discovery.find("weather");
    await discovery.findMcpTools("weather");
    for (const hostile of HOSTILE) expect(discovery.lookup(hostile.resource), hostile.resource).toBeUndefined();
    expect(discovery.lookup(REAL.resource)).toMatchObject({ resource: REAL.resource });
    expect(discovery.lookupMcpTool(`${APP}/api/mcp`, "weather")).toBeUndefined();
    expect(discovery.isMcpEndpoint(`${APP}/api/mcp`)).toBe(false);
    expect(discovery.isMcpEndpoint(RPC)).toBe(false);
    expect(discovery.lookupMcpTool(REAL_TOOL.resource, "weather")).toBeDefined();
  });

  it("leaves out paid MCP tools at this app's own endpoint and at the network's servers", async () => {
    const found = await client(true).findMcpTools("weather");
    expect(found.listings.map((listing) => listing.resource)).toEqual([REAL_TOOL.resource]);
    expect(found.dropped).toEqual({ "this-app": 1, "network-server": 1 });
  });

  it("keeps a search going past a page of listings it dropped, and falls back to the list when none is left", async () => {
    const onlyHostile = async (input: string) => {
      const url = new URL(input);
      if (url.pathname.endsWith("/search"))
        return Response.json({ x402Version: 2, resources: HOSTILE, partialResults: false, pagination: { limit: 20, cursor: null } });
      return Response.json({ x402Version: 2, items: [...HOSTILE, REAL], pagination: { limit: 100, offset: 0, total: HOSTILE.length + 1 } });
    };
    const judge = createListingJudge({ allowlist: ["127.0.0.1:4021"], infrastructure: [RPC], ownOrigins: [APP] });
    const found = await createDiscoveryClient({
      now: Date.now,
      facilitatorUrl: "http://127.0.0.1:4020",
      network: offlineNetwork,
      fetch: onlyHostile,
      judge,
    }).find("weather");
    expect(found.listings.map((listing) => listing.resource)).toEqual([REAL.resource]);
    // The search's dropped listings and the list's are the same five, counted once.
    expect(found.dropped).toEqual(EXPECTED);
  });
});

describe("the order discovery answers in", () => {
  const listed = [
    item("https://a.example/weather", { amount: "30000" }),
    item("https://b.example/weather", { amount: "10000" }),
    item("https://c.example/weather", { amount: "20000" }),
    item("https://d.example/weather", { amount: "10000" }),
  ];
  const fetch = (search: boolean) => async (input: string) => {
    if (new URL(input).pathname.endsWith("/search")) {
      return search ? Response.json({ x402Version: 2, resources: listed, partialResults: false }) : new Response("no search", { status: 404 });
    }
    return Response.json({ x402Version: 2, items: listed, pagination: { limit: 100, offset: 0, total: listed.length } });
  };
  const order = async (search: boolean, query?: string) =>
    (
      await createDiscoveryClient({ now: Date.now, facilitatorUrl: "https://facilitator.example", network: offlineNetwork, fetch: fetch(search) }).find(query)
    ).listings.map((listing) => new URL(listing.resource).host);

  it("lists equally relevant listings cheapest first, equal prices in the catalogue's order", async () => {
    expect(await order(true)).toEqual(["b.example", "d.example", "c.example", "a.example"]);
    expect(await order(false, "weather")).toEqual(["b.example", "d.example", "c.example", "a.example"]);
  });

  it("keeps a search's own ranking", async () => {
    expect(await order(true, "weather")).toEqual(["a.example", "b.example", "c.example", "d.example"]);
  });
});
