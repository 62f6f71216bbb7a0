/**
 * Anonymous callers behind a trusted proxy are namespaced by their address, and no caller's
 * request key can reach into another's namespace: an IPv6 address extended by a key's text is
 * another caller, through the chat and the MCP server alike. And an MCP call without an
 * idempotencyKey is named by its JSON-RPC id within its own connection only, since every
 * connection numbers its calls afresh. The chain is the judge of how many purchases were made.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

const MCP_URL = "http://127.0.0.1:3000/api/mcp";
const CENT = parseUnits("0.01", 6);

type Structured = Record<string, unknown>;

describe("caller namespaces behind a trusted proxy", () => {
  let harness: ChatHarness;
  let agent: `0x${string}`;
  /** The JSON-RPC id of every tools/call the clients sent. */
  const toolCallIds: unknown[] = [];
  const weather = (city: string) => `${harness.devnet.services.find((service) => service.name === "weather")?.url}?city=${city}`;

  async function connect(address: string): Promise<Client> {
    const fetch = (url: string | URL, init?: RequestInit) => {
      const message = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
      if (message?.method === "tools/call") toolCallIds.push(message.id);
      return handleMcpRequest(new Request(url, init), () => harness.deps);
    };
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch, requestInit: { headers: { "x-forwarded-for": address } } });
    const client = new Client({ name: "caller-namespaces-test", version: "1.0.0" });
    await client.connect(transport);
    return client;
  }

  async function callOnce(address: string, name: string, args: Structured): Promise<Structured> {
    const client = await connect(address);
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 55_000 })) as CallToolResult;
      expect(result.structuredContent, JSON.stringify(result.content)).toBeDefined();
      return result.structuredContent as Structured;
    } finally {
      await client.close();
    }
  }

  beforeAll(async () => {
    harness = await startChatHarness({ env: { TRUST_PROXY_HEADERS: "true" } });
    agent = harness.devnet.accounts.agent.address as `0x${string}`;
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("chat: 2001:db8::1:2 sending key k does not receive the paid result 2001:db8::1 got with key 2:k", async () => {
    const before = await harness.usdcBalance(agent);
    const body = userMessage("What's the weather in Lisbon?");
    const first = await harness.chat(body, { headers: { "x-forwarded-for": "2001:db8::1", "Idempotency-Key": "2:k" } });
    expect(first.finish?.finishReason).toBe("payment-complete");
    const second = await harness.chat(body, { headers: { "x-forwarded-for": "2001:db8::1:2", "Idempotency-Key": "k" } });
    expect(second.finish?.finishReason).toBe("payment-complete");
    // Its own purchase, not the first caller's recorded one.
    expect(second.finish?.txHash).not.toBe(first.finish?.txHash);
    expect(await harness.usdcBalance(agent)).toBe(before - 2n * CENT);
    // The first caller's retry, its address written another way by the proxy, is still the first's.
    const retry = await harness.chat(body, { headers: { "x-forwarded-for": "2001:0DB8:0:0:0:0:0:0001", "Idempotency-Key": "2:k" } });
    expect(retry.finish).toMatchObject({ finishReason: "payment-complete", txHash: first.finish?.txHash });
    expect(await harness.usdcBalance(agent)).toBe(before - 2n * CENT);
  });

  it("spending_status: a caller sees its own payments, not those of an address that extends its own", async () => {
    const bought = await callOnce("2001:db8::1:2", "buy", { url: weather("Oslo"), idempotencyKey: "oslo-1" });
    expect(bought).toMatchObject({ status: "paid" });
    const resources = async (address: string) =>
      ((await callOnce(address, "spending_status", {})).recentPayments as Structured[]).map((payment) => String(payment.resource));
    const shorter = await resources("2001:db8::1");
    expect(shorter.some((resource) => resource.includes("Lisbon"))).toBe(true);
    expect(shorter.some((resource) => resource.includes("Oslo"))).toBe(false);
    const longer = await resources("2001:db8::1:2");
    expect(longer.some((resource) => resource.includes("Oslo"))).toBe(true);
    expect(longer.filter((resource) => resource.includes("Lisbon"))).toHaveLength(1);
  });

  it("ask_agent: the same JSON-RPC id from two connections buys twice; the same idempotencyKey buys once", async () => {
    const address = "2001:db8::7";
    const prompt = "Buy the weather in Tokyo";
    const before = await harness.usdcBalance(agent);
    toolCallIds.length = 0;
    const first = await callOnce(address, "ask_agent", { prompt });
    const second = await callOnce(address, "ask_agent", { prompt });
    // Each connection numbered its call alike.
    expect(toolCallIds).toHaveLength(2);
    expect(toolCallIds[1]).toEqual(toolCallIds[0]);
    expect(first).toMatchObject({ finishReason: "payment-complete" });
    expect(second).toMatchObject({ finishReason: "payment-complete" });
    expect(second.txHash).not.toBe(first.txHash);
    expect(await harness.usdcBalance(agent)).toBe(before - 2n * CENT);

    const keyed = await callOnce(address, "ask_agent", { prompt, idempotencyKey: "tokyo-turn-1" });
    expect(keyed).toMatchObject({ finishReason: "payment-complete" });
    const retried = await callOnce(address, "ask_agent", { prompt, idempotencyKey: "tokyo-turn-1" });
    expect(retried).toMatchObject({ finishReason: "payment-complete", txHash: keyed.txHash });
    expect(await harness.usdcBalance(agent)).toBe(before - 3n * CENT);
  });
});
