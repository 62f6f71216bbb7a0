/**
 * The MCP side of a purchase's two requests: what the paid call's result becomes for the
 * purchase steps (and so what they conclude), for each kind of result a server may send.
 */
import { describe, expect, it } from "vitest";
import type { PaymentPayload } from "@x402/core/types";
import { parseSettlement } from "../../x402/read-settlement";
import type { McpConnection } from "./mcp-connection";
import { createMcpExchange, toolResultBody } from "./mcp-exchange";

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
const payload: PaymentPayload = { x402Version: 2, accepted: { ...required.accepts[0]!, network: "eip155:84532" }, payload: { signature: "0x00" } };
const settled = { success: true, transaction: TX, network: "eip155:84532", payer: `0x${"33".repeat(20)}` };

function exchangeAnswering(result: unknown, sent: unknown[] = []) {
  const connection: McpConnection = {
    callTool: async (_name, _args, options) => {
      sent.push(options.meta);
      return result;
    },
    listTools: async () => [],
    close: async () => undefined,
  };
  return createMcpExchange(connection, { toolName: "translate", arguments: { text: "hi" }, paymentRequired: required, timeoutMs: () => 1_000 });
}

async function paidAnswer(result: unknown) {
  const answer = await exchangeAnswering(result).send({
    service: "translate",
    url: "http://tools.example/mcp#translate",
    method: "POST",
    payment: payload,
    signal: new AbortController().signal,
  });
  return { answer, words: answer.description };
}

describe("the unpaid ask", () => {
  it("is the tool's payment request as it is, without sign-in-with-x (MCP defines no sign-in)", async () => {
    const answer = await exchangeAnswering(undefined).ask({ service: "translate", url: "http://tools.example/mcp#translate", method: "POST" });
    expect(answer).toEqual({ status: "payment-required", paymentRequired: { ...required, extensions: { bazaar: required.extensions.bazaar } } });
  });
});

describe("the paid call", () => {
  it('carries the payment payload as it is, in _meta["x402/payment"]', async () => {
    const sent: unknown[] = [];
    await exchangeAnswering({ content: [] }, sent).send({
      service: "translate",
      url: "u",
      method: "POST",
      payment: payload,
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([{ "x402/payment": payload }]);
  });
});

describe("the paid call's result", () => {
  it("delivered: its structured content as JSON, the settlement from _meta", async () => {
    const { answer } = await paidAnswer({
      content: [{ type: "text", text: "x" }],
      structuredContent: { translation: "salut" },
      _meta: { "x402/payment-response": settled },
    });
    expect(answer.delivered).toBe(true);
    expect(parseSettlement(answer.settlement)?.transaction).toBe(TX);
    expect(await answer.content.json()).toEqual({ translation: "salut" });
  });

  it("an error result after payment: not delivered, its settlement kept for the chain to check, in MCP's words", async () => {
    const { answer, words } = await paidAnswer({ isError: true, content: [{ type: "text", text: "crashed" }], _meta: { "x402/payment-response": settled } });
    expect(answer.delivered).toBe(false);
    expect(parseSettlement(answer.settlement)?.transaction).toBe(TX);
    expect(words).toBe('translate returned an error result after receiving the payment (the service\'s error, untrusted: "crashed").');
  });

  it("a payment request again (verification refused): not delivered, with the reason the purchase reads", async () => {
    const { answer } = await paidAnswer({
      isError: true,
      structuredContent: { ...required, error: "invalid_exact_evm_signature" },
      content: [{ type: "text", text: JSON.stringify({ ...required, error: "invalid_exact_evm_signature" }) }],
    });
    expect(answer.delivered).toBe(false);
    expect(await answer.refusal()).toEqual({ stage: "verification", reason: "invalid_exact_evm_signature" });
  });

  it("something that is not a tool result: not delivered, said so", async () => {
    const { answer, words } = await paidAnswer("nonsense");
    expect(answer.delivered).toBe(false);
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
