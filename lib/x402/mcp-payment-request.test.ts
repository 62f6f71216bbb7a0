/**
 * Reading a payment request from a tool result beyond the spec's examples (those are in
 * tests/conformance/mcp.test.ts): what is not one, and what is too large or too deep to read.
 */
import { describe, expect, it } from "vitest";
import { MAX_PAYMENT_REQUEST_TEXT_CHARS, readToolPaymentRequest, readToolSettlement } from "./mcp-payment-request";

const required = { x402Version: 2, accepts: [{ scheme: "exact" }] };

describe("readToolPaymentRequest", () => {
  it("reads the bare PaymentRequired in content[0].text (what the official server wrapper writes)", () => {
    expect(readToolPaymentRequest({ isError: true, content: [{ type: "text", text: JSON.stringify(required) }] })).toEqual({
      kind: "payment-required",
      paymentRequired: required,
      from: "text",
    });
  });

  it("reads nothing from error results that are not payment requests", () => {
    for (const result of [
      { isError: true, content: [{ type: "text", text: "the tool crashed" }] },
      { isError: true, content: [{ type: "text", text: '{"x402Version": 2}' }] },
      { isError: true, content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      { isError: true, structuredContent: { accepts: [] } },
      { isError: true },
      "not a result",
    ]) {
      expect(readToolPaymentRequest(result)).toEqual({ kind: "none" });
    }
  });

  it("reads only content[0]: a payment request in a later item is not the spec's", () => {
    expect(
      readToolPaymentRequest({
        isError: true,
        content: [
          { type: "text", text: "pay" },
          { type: "text", text: JSON.stringify(required) },
        ],
      }),
    ).toEqual({ kind: "none" });
  });

  it("leaves text too long, or JSON too deep, unread", () => {
    const long = JSON.stringify({ ...required, padding: "x".repeat(MAX_PAYMENT_REQUEST_TEXT_CHARS) });
    expect(readToolPaymentRequest({ isError: true, content: [{ type: "text", text: long }] })).toEqual({ kind: "none" });
    let deep: Record<string, unknown> = { ...required };
    for (let depth = 0; depth < 20; depth += 1) deep = { ...required, nested: deep };
    expect(readToolPaymentRequest({ isError: true, structuredContent: deep })).toEqual({ kind: "none" });
  });
});

describe("readToolSettlement", () => {
  it("prefers _meta, and reads nothing from a result that reports none", () => {
    const settlement = { success: true, transaction: `0x${"ab".repeat(32)}`, network: "eip155:84532" };
    expect(readToolSettlement({ content: [], _meta: { "x402/payment-response": settlement } })).toEqual(settlement);
    expect(readToolSettlement({ content: [{ type: "text", text: "done" }] })).toBeUndefined();
  });
});
