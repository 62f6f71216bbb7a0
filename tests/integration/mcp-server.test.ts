/**
 * The agent as an MCP server, driven by the official MCP client (`Client` and its Streamable
 * HTTP transport) against the route's handler in process, on the local world: the tools and
 * their annotations, discovery, a quote that moves nothing, a purchase the chain shows, a
 * retried purchase that pays once, a purchase over the limit that signs nothing, the spending
 * status, one agent turn with the demo model, progress while paying, and who may call it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { parseEnv } from "../../lib/env";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { handleResourceMetadataRequest } from "../../lib/mcp/handle-resource-metadata";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

const ORIGIN = "http://127.0.0.1:3000";
const MCP_URL = `${ORIGIN}/api/mcp`;
const CENT = parseUnits("0.01", 6);

/** The route, in process: every request the client makes goes to the handler as a Request. */
function routeTo(deps: AppDependencies) {
  return (url: string | URL, init?: RequestInit) => handleMcpRequest(new Request(url, init), () => deps);
}

async function connect(deps: AppDependencies, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: routeTo(deps), requestInit: { headers } });
  const client = new Client({ name: "mcp-server-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

type Structured = Record<string, unknown>;

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  onProgress?: (message: string) => void,
): Promise<CallToolResult & { structuredContent: Structured }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 55_000,
    ...(onProgress ? { onprogress: (progress: { message?: string }) => onProgress(progress.message ?? "") } : {}),
  })) as CallToolResult;
  expect(result.structuredContent, JSON.stringify(result.content)).toBeDefined();
  return result as CallToolResult & { structuredContent: Structured };
}

describe("the MCP server on the local world", () => {
  let harness: ChatHarness;
  let client: Client;
  let agent: `0x${string}`;
  const weather = (city: string) => `${harness.devnet.services.find((service) => service.name === "weather")?.url}?city=${city}`;
  const premium = () => `${harness.devnet.services.find((service) => service.name === "premium-report")?.url}?topic=batteries`;

  beforeAll(async () => {
    harness = await startChatHarness();
    agent = harness.devnet.accounts.agent.address as `0x${string}`;
    client = await connect(harness.deps);
  });
  afterAll(async () => {
    await client?.close();
    await harness?.stop();
  });

  it("lists five tools with input schemas and annotations; the spending tools are not read-only", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(["ask_agent", "buy", "discover_services", "quote", "spending_status"]);
    for (const name of ["buy", "ask_agent"]) {
      expect(byName[name]?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    }
    for (const name of ["discover_services", "quote", "spending_status"]) {
      expect(byName[name]?.annotations?.readOnlyHint, name).toBe(true);
    }
    expect(byName.buy?.inputSchema).toMatchObject({ type: "object", required: ["url"] });
    expect(Object.keys(byName.buy?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["url", "method", "body", "idempotencyKey", "maxPrice"]));
    expect(byName.discover_services?.inputSchema).toMatchObject({ required: ["query"] });
    expect(Object.keys(byName.ask_agent?.inputSchema.properties ?? {})).toEqual(["prompt", "spendingLimits", "idempotencyKey"]);
  });

  it("discovers services with price, network and input contract, and narrows them by price", async () => {
    const found = await call(client, "discover_services", { query: "weather" });
    expect(found.isError).toBeFalsy();
    const services = found.structuredContent.services as Structured[];
    const listed = services.find((service) => service.name === "Devnet Weather");
    expect(listed).toMatchObject({
      price: "0.01",
      network: harness.deps.network.caip2,
      input: { method: "GET", query: [expect.objectContaining({ name: "city" })] },
    });
    expect(listed?.usage).toMatch(/city=/);

    const cheap = await call(client, "discover_services", { query: "", maxPrice: "0.02" });
    const prices = (cheap.structuredContent.services as Structured[]).map((service) => Number(service.price));
    expect(prices.length).toBeGreaterThan(0);
    expect(Math.max(...prices)).toBeLessThanOrEqual(0.02);
    expect((cheap.structuredContent.services as Structured[]).some((service) => service.name === "Devnet Premium Research")).toBe(false);
  });

  it("quotes a call against the caller's limits, and nothing moves on chain", async () => {
    const before = await harness.usdcBalance(agent);
    const quoted = await call(client, "quote", { url: weather("Oslo") });
    expect(quoted.structuredContent).toMatchObject({
      status: "quoted",
      amount: "0.01",
      withinLimits: true,
      problems: [],
      signed: false,
      network: harness.deps.network.caip2,
    });
    const over = await call(client, "quote", { url: premium() });
    expect(over.structuredContent).toMatchObject({ status: "quoted", amount: "5", withinLimits: false });
    expect((over.structuredContent.problems as string[]).join(" ")).toMatch(/over your per-payment limit of 1 USDC/);
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect(await harness.deps.store.ledger.spentToday(agent)).toEqual({ settled: 0n, reserved: 0n });
  });

  it("buys: the chain moves the price, the result has the data, the amount and the hash, with progress on the way", async () => {
    const before = await harness.usdcBalance(agent);
    const progress: string[] = [];
    const bought = await call(client, "buy", { url: weather("Tokyo"), idempotencyKey: "tokyo-1" }, (message) => progress.push(message));
    expect(bought.isError, JSON.stringify(bought.structuredContent)).toBeFalsy();
    expect(bought.structuredContent).toMatchObject({
      status: "paid",
      amount: "0.01",
      amountUsdc: "0.01",
      replayed: false,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(JSON.stringify((bought.structuredContent.result as Structured).data)).toMatch(/Tokyo/);
    expect(await harness.usdcBalance(agent)).toBe(before - CENT);
    // The tracker's steps, in order, as progress notifications.
    const steps = progress.map((message) => message.split(/[ :(]/)[0]);
    expect(steps).toEqual(expect.arrayContaining(["quoted", "signing", "delivered"]));
    expect(steps.indexOf("quoted")).toBeLessThan(steps.indexOf("signing"));
    expect(steps.indexOf("signing")).toBeLessThan(steps.indexOf("delivered"));
    // Journaled as a chat payment is.
    const row = await harness.deps.store.journal.get(bought.structuredContent.paymentId as string);
    expect(row).toMatchObject({ status: "delivered", txHash: bought.structuredContent.txHash, payerKind: "agent" });

    // The same call again with the same key: the first outcome, and the chain moved once.
    const again = await call(client, "buy", { url: weather("Tokyo"), idempotencyKey: "tokyo-1" });
    expect(again.structuredContent).toMatchObject({
      status: "paid",
      replayed: true,
      txHash: bought.structuredContent.txHash,
      paymentId: bought.structuredContent.paymentId,
    });
    expect(await harness.usdcBalance(agent)).toBe(before - CENT);
  });

  it("refuses a purchase over the per-payment limit with nothing signed, and maxPrice lowers the limit", async () => {
    const before = await harness.usdcBalance(agent);
    const progress: string[] = [];
    const refused = await call(client, "buy", { url: premium() }, (message) => progress.push(message));
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(refused.structuredContent.message).toMatch(/nothing was signed/);
    expect(progress.some((message) => message.startsWith("signing"))).toBe(false);
    const capped = await call(client, "buy", { url: weather("Lima"), maxPrice: "0.005" });
    expect(capped.structuredContent).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(await harness.usdcBalance(agent)).toBe(before);
  });

  it("shows the caller's limits, what is spent today and its payments", async () => {
    const status = await call(client, "spending_status");
    expect(status.structuredContent).toMatchObject({ caller: { kind: "anonymous" }, access: "open", agentWallet: agent, limits: { perPayment: "1" } });
    const payments = status.structuredContent.recentPayments as Structured[];
    expect(payments.some((payment) => payment.status === "delivered" && payment.amount === "0.01" && /Tokyo/.test(String(payment.resource)))).toBe(true);
    const today = (status.structuredContent.today as { limits: Structured[] }).limits[0];
    expect(Number(today?.spent)).toBeGreaterThanOrEqual(0.01);
  });

  it("runs one agent turn with the demo model: it buys the weather and answers", async () => {
    const before = await harness.usdcBalance(agent);
    const progress: string[] = [];
    const turn = await call(client, "ask_agent", { prompt: "Buy the weather in Tokyo" }, (message) => progress.push(message));
    expect(turn.isError).toBeFalsy();
    expect(turn.structuredContent).toMatchObject({ finishReason: "payment-complete", txHash: expect.stringMatching(/^0x/) });
    expect(turn.structuredContent.text).toMatch(/Tokyo/);
    const payments = turn.structuredContent.payments as Structured[];
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount: "0.01", txHash: turn.structuredContent.txHash });
    expect(progress.some((message) => message.startsWith("delivered"))).toBe(true);
    expect(await harness.usdcBalance(agent)).toBe(before - CENT);
  });

  it("answers GET and DELETE with 405 (stateless), and refuses a page of another site", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await handleMcpRequest(new Request(MCP_URL, { method }), () => harness.deps);
      expect(response.status, method).toBe(405);
    }
    const response = await handleMcpRequest(
      new Request(MCP_URL, {
        method: "POST",
        headers: { origin: "http://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: "{}",
      }),
      () => harness.deps,
    );
    expect(response.status).toBe(403);
  });

  describe("where the agent wallet pays for named callers only (AGENT_WALLET_ACCESS=authenticated)", () => {
    let keyed: AppDependencies;
    beforeAll(() => {
      keyed = createAppDependencies(parseEnv({ DEMO_MODEL_CHUNK_DELAY_MS: "0", RATE_LIMIT_REQUESTS: "10000", AGENT_WALLET_ACCESS: "authenticated" }), {
        network: harness.deps.network,
        store: harness.deps.store,
        baseModel: harness.deps.baseModel,
      });
    });

    it("refuses a call without a key: 401 with a challenge naming the protected-resource metadata, which exists", async () => {
      const initialize = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
      };
      const response = await routeTo(keyed)(MCP_URL, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="x402-agent", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`);
      await expect(connect(keyed)).rejects.toThrow();

      const metadata = handleResourceMetadataRequest(new Request(`${ORIGIN}/.well-known/oauth-protected-resource`), () => undefined);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toEqual({ resource: MCP_URL, resource_name: expect.any(String), bearer_methods_supported: ["header"] });
      // A bad key is 401 too, with the error named and the metadata.
      const bad = await routeTo(keyed)(MCP_URL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer x402k_0000000000000000_" + "A".repeat(43),
        },
        body: JSON.stringify(initialize),
      });
      expect(bad.status).toBe(401);
      expect(bad.headers.get("www-authenticate")).toMatch(/error="invalid_token", resource_metadata="/);
    });

    it("serves a valid API key within its budget, and its budget stops the next payment", async () => {
      const { key, token } = await harness.deps.store.apiKeys.create({
        name: "desktop",
        budget: { perPayment: CENT, perRequest: CENT, daily: CENT + CENT / 2n },
      });
      const keyedClient = await connect(keyed, { authorization: `Bearer ${token}` });
      try {
        const before = await harness.usdcBalance(agent);
        const first = await call(keyedClient, "buy", { url: weather("Quito") });
        // This server's discovery client has listed nothing yet: the URL is matched against the
        // Bazaar first, so it is bought as the listed service it is.
        expect(first.structuredContent).toMatchObject({ status: "paid", amount: "0.01", service: "Devnet Weather" });
        expect(await harness.usdcBalance(agent)).toBe(before - CENT);
        const second = await call(keyedClient, "buy", { url: weather("Accra") });
        expect(second.structuredContent).toMatchObject({ status: "failed", reason: "limit-exceeded" });
        expect(second.structuredContent.message).toMatch(/daily limit of the API key “desktop”'s budget/);
        expect(await harness.usdcBalance(agent)).toBe(before - CENT);
        expect(await harness.deps.store.ledger.spentInScope(`key:${key.id}`)).toEqual({ settled: CENT, reserved: 0n });

        const status = await call(keyedClient, "spending_status");
        expect(status.structuredContent).toMatchObject({ caller: { kind: "api-key", name: "desktop" }, limits: { perPayment: "0.01", daily: "0.015" } });
        // Its own payments only: the anonymous caller's Tokyo purchases are not among them.
        const resources = (status.structuredContent.recentPayments as Structured[]).map((payment) => String(payment.resource));
        expect(resources.some((resource) => resource.includes("Quito"))).toBe(true);
        expect(resources.some((resource) => resource.includes("Tokyo"))).toBe(false);
      } finally {
        await keyedClient.close();
      }
    });

    it("refuses a key the operator did not allow to use the agent wallet (403)", async () => {
      const { token } = await harness.deps.store.apiKeys.create({
        name: "no-wallet",
        budget: { perPayment: CENT, perRequest: CENT, daily: CENT },
        agentWallet: false,
      });
      const response = await routeTo(keyed)(MCP_URL, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "forbidden:agent_wallet" });
    });
  });
});
