/**
 * MCP `quote` for a service that offers only a metered (`upto`) payment: it answers with the
 * scheme and the ceiling a `buy` would sign, checked as the purchase checks it (the quote and
 * the purchase share one quote stage), and nothing moves on chain.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { formatUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

const MCP_URL = "http://127.0.0.1:3000/api/mcp";

describe("MCP quote of a metered-only service", () => {
  let harness: ChatHarness;
  let client: Client;

  beforeAll(async () => {
    harness = await startChatHarness();
    const deps = harness.deps;
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: (url, init) => handleMcpRequest(new Request(url, init), () => deps) });
    client = new Client({ name: "mcp-quote-metered-test", version: "1.0.0" });
    await client.connect(transport);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await harness?.stop();
  });

  it("answers with scheme upto and its ceiling, within limits, and nothing moves", async () => {
    const meter = harness.devnet.services.find((service) => service.name === "row-meter");
    if (!meter?.amount || meter.scheme !== "upto") throw new Error("the local world has no metered row-meter");
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const url = `${meter.url}?rows=2`;
    const result = (await client.callTool({ name: "quote", arguments: { url } }, undefined, { timeout: 55_000 })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    const ceiling = formatUnits(BigInt(meter.amount), 6);
    expect(result.structuredContent).toMatchObject({
      status: "quoted",
      scheme: "upto",
      ceiling,
      amount: ceiling,
      withinLimits: true,
      problems: [],
      signed: false,
    });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect(await harness.deps.store.ledger.spentToday(agent)).toEqual({ settled: 0n, reserved: 0n });
  });
});
