/**
 * The MCP side of a purchase's two requests: what the paid call's result becomes for the
 * purchase steps (and so what they conclude), for each kind of result a server may send.
 */
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { readPaymentRefusal } from "../../x402/payment-refusal";
import { readPaymentRequired } from "../../x402/payment-requirements";
import { readSettlement } from "../../x402/read-settlement";
import type { McpConnection } from "./mcp-connection";
import { createMcpExchange, paymentRequiredAnswer, toolResultBody } from "./mcp-exchange";

const TX = `0x${"ab".repeat(32)}`;
const required = {
  x402Version: 2,
  resource: { url: "http://tools.example/mcp" },
  accepts: [
    {
      scheme: "exact",
      network: "eip155:84532",
      amount: "10",
      asset: `0x${"11".repeat(20)}`,
      payTo: `0x${"22".repeat(20)}`,
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    },
  ],
  extensions: { "sign-in-with-x": { info: {} }, bazaar: { info: { input: { type: "mcp" } } } },
};
const payload = { x402Version: 2, accepted: required.accepts[0], payload: { signature: "0x00" } };
const settled = { success: true, transaction: TX, network: "eip155:84532", payer: `0x${"33".repeat(20)}` };

function exchangeAnswering(result: unknown) {
  const connection: McpConnection = { callTool: async () => result, listTools: async () => [], close: async () => undefined };
  return createMcpExchange(connection, { toolName: "translate", arguments: { text: "hi" }, paymentRequired: required, timeoutMs: () => 1_000 });
}

async function paidAnswer(result: unknown) {
  const exchange = exchangeAnswering(result);
  const answer = await exchange.fetch("http://tools.example/mcp#translate", {
    method: "POST",
    headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload as never) },
  });
  return { answer, words: exchange.describeAnswer(answer) };
}

describe("the unpaid ask", () => {
  it("is the tool's payment request as a 402, without sign-in-with-x (MCP defines no sign-in)", async () => {
    const answer = await exchangeAnswering(undefined).fetch("http://tools.example/mcp#translate", { method: "POST" });
    expect(answer.status).toBe(402);
    expect(readPaymentRequired(answer.headers, undefined)).toEqual({ ...required, extensions: { bazaar: required.extensions.bazaar } });
    expect(paymentRequiredAnswer({ ...required, x402Version: 1 }).headers.has("PAYMENT-REQUIRED")).toBe(false);
  });
});

describe("the paid call's result", () => {
  it("delivered: 200, its structured content as JSON, the settlement as PAYMENT-RESPONSE", async () => {
    const { answer } = await paidAnswer({
      content: [{ type: "text", text: "x" }],
      structuredContent: { translation: "salut" },
      _meta: { "x402/payment-response": settled },
    });
    expect(answer.status).toBe(200);
    expect(readSettlement(answer.headers)?.transaction).toBe(TX);
    expect(await answer.json()).toEqual({ translation: "salut" });
  });

  it("an error result after payment: not delivered (500), its settlement kept for the chain to check, in MCP's words", async () => {
    const { answer, words } = await paidAnswer({ isError: true, content: [{ type: "text", text: "crashed" }], _meta: { "x402/payment-response": settled } });
    expect(answer.status).toBe(500);
    expect(readSettlement(answer.headers)?.transaction).toBe(TX);
    expect(words).toBe('translate returned an error result after receiving the payment (the service\'s error, untrusted: "crashed").');
  });

  it("a payment request again (verification refused): 402 with the reason the purchase reads", async () => {
    const { answer } = await paidAnswer({
      isError: true,
      structuredContent: { ...required, error: "invalid_exact_evm_signature" },
      content: [{ type: "text", text: JSON.stringify({ ...required, error: "invalid_exact_evm_signature" }) }],
    });
    expect(answer.status).toBe(402);
    expect(readPaymentRefusal(answer.headers, undefined)).toEqual({ stage: "verification", reason: "invalid_exact_evm_signature" });
  });

  it("something that is not a tool result: not delivered, said so", async () => {
    const { answer, words } = await paidAnswer("nonsense");
    expect(answer.ok).toBe(false);
    expect(words).toMatch(/not an MCP tool result/);
  });
});

describe("toolResultBody", () => {
  it("keeps one JSON text as JSON, joins texts, and names items it does not decode", () => {
    expect(toolResultBody({ content: [{ type: "text", text: '{"a":1}' }] })).toEqual({ contentType: "application/json", text: '{"a":1}' });
    expect(
      toolResultBody({
        content: [
          { type: "text", text: "one" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
      }),
    ).toEqual({
      contentType: "text/plain",
      text: "one\n(a image image/png item, not shown)",
    });
  });
});
