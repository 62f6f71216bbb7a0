/**
 * An MCP purchase against an in-process MCP server (the official SDK's server transport behind
 * the purchase's fetch), a fake chain and a fake clock: it pays once through the purchase steps
 * every payment takes, and refuses, with nothing signed, what it must not pay.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { agent, chain, dependencies, events, PRICE, resetPurchaseHarness, tracker, clock, user } from "../../../tests/support/purchase-harness";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import type { FakePaidService } from "../../../tests/support/fake-paid-service";
import { runMcpPurchase, type McpPurchaseRequest } from "./mcp-purchase";

const ENDPOINT = "http://tools.example/mcp";
const PAYEE = `0x${"77".repeat(20)}`;
const TEXT_SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

const requirement = (amount: bigint) => ({
  scheme: "exact",
  network: offlineNetwork.caip2,
  amount: amount.toString(),
  asset: offlineNetwork.usdc,
  payTo: PAYEE,
  maxTimeoutSeconds: 60,
  extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion },
});
const paymentRequired = (amount: bigint) => ({ x402Version: 2, resource: { url: ENDPOINT }, accepts: [requirement(amount)] });
const asking = (structured: unknown, text: unknown = structured): CallToolResult => ({
  isError: true,
  structuredContent: structured as Record<string, unknown>,
  content: [{ type: "text", text: JSON.stringify({ "x402/error": { code: 402, message: "Payment required", data: text } }) }],
});

type Seen = { rpc: string; tool?: string; paid: boolean };

/** An MCP server as a fetch: each POST a fresh stateless server, its tools scripted. */
function mcpServer(price = PRICE) {
  const seen: Seen[] = [];
  const build = () => {
    const server = new McpServer({ name: "test-tools", version: "1.0.0" });
    const input = z.object({ text: z.string() });
    server.registerTool("priced", { inputSchema: input }, async (_args, extra) => {
      const payment = extra._meta?.["x402/payment"] as { payload: { authorization: { nonce: string } } } | undefined;
      if (!payment) return asking(paymentRequired(price));
      const transaction = chain.settle(payment.payload.authorization.nonce);
      return {
        content: [{ type: "text", text: '{"answer":42}' }],
        _meta: { "x402/payment-response": { success: true, transaction, network: offlineNetwork.caip2 } },
      };
    });
    server.registerTool("conflicting", { inputSchema: input }, async () => asking(paymentRequired(price), paymentRequired(1n)));
    server.registerTool("hidden", { inputSchema: input }, async () => asking(paymentRequired(price)));
    server.registerTool("echo", { inputSchema: input }, async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
    return server;
  };
  const fetch: FakePaidService["fetch"] = async (url, init) => {
    const sent = new Request(url, init);
    if (sent.method === "POST") {
      const body = (await sent.clone().json()) as { method: string; params?: { name?: string; _meta?: Record<string, unknown> } };
      seen.push({ rpc: body.method, tool: body.params?.name, paid: body.params?._meta?.["x402/payment"] !== undefined });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await build().connect(transport);
    return transport.handleRequest(sent);
  };
  return { fetch, seen, toolCalls: () => seen.filter((entry) => entry.rpc === "tools/call") };
}

function request(overrides: Partial<McpPurchaseRequest> = {}): McpPurchaseRequest {
  return {
    endpoint: ENDPOINT,
    toolName: "priced",
    arguments: { text: "hi" },
    transport: "streamable-http",
    inputSchema: TEXT_SCHEMA,
    listedAmount: PRICE,
    intent: "call-1",
    payer: { kind: "agent", account: agent },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 1_000_000n },
    maxPayments: 3,
    tracker,
    deadline: clock.now() + 43_500,
    ...overrides,
  };
}

/** The purchase's dependencies with the MCP server as its outbound fetch. */
const depsOf = (server: { fetch: FakePaidService["fetch"] }) => dependencies(server as FakePaidService);

const statuses = () => events.map((event) => event.payment.status);

beforeEach(() => resetPurchaseHarness());

describe("an MCP purchase", () => {
  it("pays a listed tool once, through the same steps as an HTTP purchase, and delivers its result", async () => {
    const server = mcpServer();
    const outcome = await runMcpPurchase(depsOf(server), request());
    expect(outcome).toMatchObject({
      status: "delivered",
      service: "priced",
      resource: `${ENDPOINT}#priced`,
      amount: "0.015",
      data: { content: { answer: 42 } },
    });
    expect(statuses()).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    expect(server.toolCalls().map((call) => call.paid)).toEqual([false, true]);
    expect(chain.used.size).toBe(1);
  });

  it("calls a free tool without any payment step", async () => {
    const server = mcpServer();
    const outcome = await runMcpPurchase(depsOf(server), request({ toolName: "echo", inputSchema: undefined, listedAmount: undefined }));
    expect(outcome).toMatchObject({ status: "free", service: "echo", data: { content: "echo: hi" } });
    expect(statuses()).toEqual([]);
  });

  it("refuses a payment request whose two copies disagree, with nothing signed", async () => {
    const server = mcpServer();
    const outcome = await runMcpPurchase(depsOf(server), request({ toolName: "conflicting" }));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed", message: expect.stringMatching(/disagree/) });
    expect(statuses()).toEqual(["failed"]);
    expect(server.toolCalls().map((call) => call.paid)).toEqual([false]);
  });

  it("refuses a price above the listing's (the shared purchase steps), with nothing signed", async () => {
    const server = mcpServer(PRICE * 2n);
    const outcome = await runMcpPurchase(depsOf(server), request());
    expect(outcome).toMatchObject({ status: "failed", message: expect.stringMatching(/more than the 0.015 USDC its listing advertised; nothing was signed/) });
    expect(server.toolCalls().map((call) => call.paid)).toEqual([false]);
  });

  it("does not pay a tool discovery did not list, nor with the user's wallet", async () => {
    const server = mcpServer();
    const deps = depsOf(server);
    expect(await runMcpPurchase(deps, request({ toolName: "hidden", inputSchema: undefined, listedAmount: undefined }))).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/does not list it/),
    });
    expect(await runMcpPurchase(deps, request({ intent: "call-2", payer: { kind: "user", address: user.address } }))).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/agent wallet only/),
    });
    expect(server.toolCalls().every((call) => !call.paid)).toBe(true);
    expect(statuses()).not.toContain("quoted");
  });

  it("checks an unlisted tool's arguments against the server's own declaration before calling it", async () => {
    const server = mcpServer();
    const outcome = await runMcpPurchase(depsOf(server), request({ toolName: "echo", arguments: { text: 5 }, inputSchema: undefined }));
    expect(outcome).toEqual({ status: "refused", message: expect.stringMatching(/^Not called, nothing was paid: text must be a string, not a number/) });
    expect(server.seen.map((entry) => entry.rpc)).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    const missing = await runMcpPurchase(depsOf(server), request({ toolName: "nope", inputSchema: undefined }));
    expect(missing).toMatchObject({ status: "refused", message: expect.stringMatching(/no tool named "nope". Its tools: priced, conflicting, hidden, echo/) });
  });

  it("refuses a listing over the SSE transport before sending anything", async () => {
    const server = mcpServer();
    const outcome = await runMcpPurchase(depsOf(server), request({ transport: "sse" }));
    expect(outcome).toMatchObject({ status: "refused", message: expect.stringMatching(/sse transport/) });
    expect(server.seen).toEqual([]);
  });
});
