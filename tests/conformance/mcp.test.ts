/**
 * x402 over MCP as the specification shows it, through our client (reading a payment request
 * from a tool result, sending the payment in `_meta`, reading the settlement) and through the
 * local world's server (the payment request it answers), and an MCP tool's Bazaar listing
 * through our discovery client.
 */
import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { paymentRequiredResult } from "@/devnet/mcp/mcp-paywall";
import type { McpConnection } from "@/lib/agent/purchase/mcp-connection";
import { createMcpExchange } from "@/lib/agent/purchase/mcp-exchange";
import { createDiscoveryClient } from "@/lib/x402/discovery-client";
import { readMcpContract } from "@/lib/x402/mcp-listing";
import { readToolPaymentRequest, readToolSettlement } from "@/lib/x402/mcp-payment-request";
import { parseSettlement } from "@/lib/x402/read-settlement";
import {
  bazaarMcpListing,
  errorWrapperText,
  mcpPaidCallParams,
  mcpPaymentRequired,
  mcpPaymentRequiredResult,
  mcpPaymentRequiredTextOnly,
  mcpPaymentRequiredWrappedStructured,
  mcpSettledResult,
  mcpSettlementFailedResult,
} from "./fixtures/mcp";
import { SPEC, specPayer } from "./fixtures/spec-fixture";

describe.each([mcpPaymentRequiredResult, mcpPaymentRequiredTextOnly, mcpPaymentRequiredWrappedStructured])("$name ($source)", ({ value }) => {
  it("reads the spec's PaymentRequired from it", () => {
    expect(readToolPaymentRequest(value)).toMatchObject({ kind: "payment-required", paymentRequired: mcpPaymentRequired });
  });

  it("hands it to the purchase as it is, read as an HTTP service's 402 would be", async () => {
    const request = readToolPaymentRequest(value);
    if (request.kind !== "payment-required") throw new Error("not read");
    const connection: McpConnection = { callTool: async () => undefined, listTools: async () => [], close: async () => undefined };
    const exchange = createMcpExchange(connection, { toolName: "t", arguments: {}, paymentRequired: request.paymentRequired, timeoutMs: () => 1_000 });
    const answer = await exchange.ask({ service: "t", url: "https://api.example.com/mcp#t", method: "POST" });
    expect(answer).toEqual({ status: "payment-required", paymentRequired: mcpPaymentRequired });
  });
});

describe("copies of a payment request (specs/transports-v2/mcp.md §Server Requirements: content[0].text and structuredContent)", () => {
  it("refuses both when they disagree (here on the amount), rather than paying on either's word", () => {
    const cheaper = { ...mcpPaymentRequired, accepts: [{ ...(mcpPaymentRequired.accepts as Record<string, unknown>[])[0], amount: "1" }] };
    const result = { isError: true, structuredContent: cheaper, content: [{ type: "text", text: errorWrapperText(mcpPaymentRequired) }] };
    expect(readToolPaymentRequest(result)).toEqual({ kind: "conflict" });
  });

  it("takes copies that differ only in key order as the same", () => {
    const reordered = Object.fromEntries(Object.entries(mcpPaymentRequired).reverse());
    const result = { isError: true, structuredContent: mcpPaymentRequired, content: [{ type: "text", text: JSON.stringify(reordered) }] };
    expect(readToolPaymentRequest(result)).toMatchObject({ kind: "payment-required" });
  });

  it("reads no payment request in a result that is not an error (a tool's data may look like x402)", () => {
    expect(readToolPaymentRequest({ ...mcpPaymentRequiredResult.value, isError: false })).toEqual({ kind: "none" });
    expect(readToolPaymentRequest({ content: [{ type: "text", text: "hello" }] })).toEqual({ kind: "none" });
  });
});

describe(`${mcpPaidCallParams.name} (${mcpPaidCallParams.source})`, () => {
  it('is what the agent sends: the payment payload, unchanged, in _meta["x402/payment"], with the same tool and arguments', async () => {
    const calls: { name: string; args: Record<string, unknown>; meta?: Record<string, unknown> }[] = [];
    const connection: McpConnection = {
      async callTool(name, args, options) {
        calls.push({ name, args, meta: options.meta });
        return mcpSettledResult.value;
      },
      listTools: async () => [],
      close: async () => undefined,
    };
    const spec = mcpPaidCallParams.value as {
      name: string;
      arguments: Record<string, unknown>;
      _meta: { "x402/payment": PaymentPayload };
    };
    const exchange = createMcpExchange(connection, {
      toolName: spec.name,
      arguments: spec.arguments,
      paymentRequired: mcpPaymentRequired,
      timeoutMs: () => 1_000,
    });
    const answer = await exchange.send({
      service: spec.name,
      url: "https://api.example.com/mcp#financial_analysis",
      method: "POST",
      payment: spec._meta["x402/payment"],
      signal: new AbortController().signal,
    });
    expect(calls).toEqual([{ name: spec.name, args: spec.arguments, meta: spec._meta }]);
    expect(answer.delivered).toBe(true);
    expect(parseSettlement(answer.settlement)).toEqual({ success: true, transaction: SPEC.transaction, network: SPEC.network, payer: SPEC.payer });
    expect(await answer.content.text()).toBe("Financial analysis for AAPL: Strong fundamentals with positive outlook...");
  });
});

describe(`${mcpSettledResult.name} (${mcpSettledResult.source})`, () => {
  it("reads the settlement from _meta", () => {
    expect(readToolSettlement(mcpSettledResult.value)).toEqual({ success: true, transaction: SPEC.transaction, network: SPEC.network, payer: SPEC.payer });
  });
});

describe(`${mcpSettlementFailedResult.name} (${mcpSettlementFailedResult.source})`, () => {
  it("reads the failed settlement from inside the repeated payment request, and its reason", async () => {
    expect(readToolSettlement(mcpSettlementFailedResult.value)).toEqual({
      success: false,
      errorReason: "insufficient_funds",
      transaction: "",
      network: SPEC.network,
    });
    const connection: McpConnection = { callTool: async () => mcpSettlementFailedResult.value, listTools: async () => [], close: async () => undefined };
    const exchange = createMcpExchange(connection, {
      toolName: "financial_analysis",
      arguments: {},
      paymentRequired: mcpPaymentRequired,
      timeoutMs: () => 1_000,
    });
    const answer = await exchange.send({
      service: "financial_analysis",
      url: "https://api.example.com/mcp",
      method: "POST",
      payment: (mcpPaidCallParams.value._meta as { "x402/payment": PaymentPayload })["x402/payment"],
      signal: new AbortController().signal,
    });
    expect(answer.delivered).toBe(false);
    expect(await answer.refusal()).toEqual({ stage: "settlement", reason: "insufficient_funds" });
  });
});

describe("the local world's MCP server (devnet/mcp)", () => {
  it(`answers a payment request in the spec's shape (${mcpPaymentRequiredResult.source})`, () => {
    expect(paymentRequiredResult(mcpPaymentRequired as never)).toEqual(mcpPaymentRequiredResult.value);
  });
});

describe(`${bazaarMcpListing.name} (${bazaarMcpListing.source})`, () => {
  it("reads the tool: its name (the spec's `tool`), its input schema, Streamable HTTP by default", () => {
    expect(readMcpContract(bazaarMcpListing.value)).toMatchObject({
      toolName: "financial_analysis",
      transport: "streamable-http",
      inputSchema: { type: "object", required: ["ticker"] },
      description: "Advanced AI-powered financial analysis",
      example: '{"ticker":"AAPL","analysis_type":"deep"}',
    });
  });

  it("reads the official package's `toolName` too, and neither when the two disagree", () => {
    const input = (bazaarMcpListing.value.extensions as { bazaar: { info: { input: Record<string, unknown> } } }).bazaar.info.input;
    const withInput = (changes: Record<string, unknown>) => ({ extensions: { bazaar: { info: { input: { ...input, ...changes } } } } });
    expect(readMcpContract(withInput({ tool: undefined, toolName: "financial_analysis" }))?.toolName).toBe("financial_analysis");
    expect(readMcpContract(withInput({ toolName: "something_else" }))).toBeUndefined();
    expect(readMcpContract(withInput({ transport: "sse" }))?.transport).toBe("sse");
    expect(readMcpContract(withInput({ transport: "websocket" }))).toBeUndefined();
    expect(readMcpContract(withInput({ inputSchema: { type: "string" } }))).toBeUndefined();
  });

  it("is found among the MCP tools, by its endpoint and name, and never as an HTTP service", async () => {
    const asked: string[] = [];
    const fetch = async (input: string) => {
      const url = new URL(input);
      asked.push(url.searchParams.get("type") ?? "");
      return Response.json({ x402Version: 2, items: [bazaarMcpListing.value], pagination: { limit: 100, offset: 0, total: 1 } });
    };
    const client = createDiscoveryClient({ now: Date.now, facilitatorUrl: "https://facilitator.example", network: specPayer, fetch });
    expect((await client.find()).listings).toEqual([]);
    const [tool] = (await client.findMcpTools()).listings;
    expect(asked).toEqual(["http", "mcp"]);
    expect(tool).toMatchObject({ resource: "https://api.example.com/mcp", amount: 10_000n, price: "0.01", mcp: { toolName: "financial_analysis" } });
    expect(client.lookupMcpTool("https://api.example.com/mcp", "financial_analysis")).toBe(tool);
    expect(client.lookupMcpTool("https://api.example.com/mcp", "other")).toBeUndefined();
    expect(client.isMcpEndpoint("https://api.example.com/mcp")).toBe(true);
    expect(client.lookup("https://api.example.com/mcp")).toBeUndefined();
  });
});
