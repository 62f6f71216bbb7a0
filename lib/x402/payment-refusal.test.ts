import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { MAX_REFUSAL_BODY_BYTES, MAX_REFUSAL_HEADER_CHARS, MAX_REFUSAL_REASON_CHARS, readPaymentRefusal, readResponseRefusal } from "./payment-refusal";

const requirement = {
  scheme: "exact",
  network: "eip155:31337",
  amount: "10000",
  asset: `0x${"11".repeat(20)}`,
  payTo: `0x${"22".repeat(20)}`,
  maxTimeoutSeconds: 60,
  extra: {},
};

/** The 402 the official resource server sends when the facilitator refuses verification. */
function requiredHeader(error: unknown): string {
  return encodePaymentRequiredHeader({ x402Version: 2, error, resource: { url: "http://x/weather" }, accepts: [requirement] } as never);
}

describe("readPaymentRefusal", () => {
  it("reads a v2 refusal from the PAYMENT-REQUIRED header's error", () => {
    const headers = new Headers({ "PAYMENT-REQUIRED": requiredHeader("invalid_exact_evm_signature") });
    expect(readPaymentRefusal(headers, undefined)).toEqual({ stage: "verification", reason: "invalid_exact_evm_signature" });
  });

  it("reads a v1 refusal from the JSON body's error, and only from a v1 body", () => {
    expect(readPaymentRefusal(new Headers(), { x402Version: 1, error: "insufficient_funds", accepts: [] })).toEqual({
      stage: "verification",
      reason: "insufficient_funds",
    });
    // A body that is not a v1 402 says nothing about the payment.
    expect(readPaymentRefusal(new Headers(), { error: "payment_required" })).toBeUndefined();
    expect(readPaymentRefusal(new Headers(), { x402Version: 2, error: "invalid_payload" })).toBeUndefined();
  });

  it("reads a failed settlement from PAYMENT-RESPONSE first: the payment got past verification", () => {
    const headers = new Headers({
      "PAYMENT-RESPONSE": encodePaymentResponseHeader({
        success: false,
        errorReason: "invalid_exact_evm_transaction_failed",
        transaction: "",
        network: "eip155:31337",
      } as never),
      "PAYMENT-REQUIRED": requiredHeader("invalid_exact_evm_signature"),
    });
    expect(readPaymentRefusal(headers, undefined)).toEqual({ stage: "settlement", reason: "invalid_exact_evm_transaction_failed" });
    const v1 = new Headers({ "X-PAYMENT-RESPONSE": encodePaymentResponseHeader({ success: false, transaction: "", network: "anvil" } as never) });
    expect(readPaymentRefusal(v1, { x402Version: 1, error: "settle_failed" })).toEqual({ stage: "settlement", reason: undefined });
  });

  it("says nothing when nothing readable says why", () => {
    expect(readPaymentRefusal(new Headers(), undefined)).toBeUndefined();
    expect(readPaymentRefusal(new Headers({ "PAYMENT-REQUIRED": "%%%not-base64" }), undefined)).toBeUndefined();
    expect(readPaymentRefusal(new Headers({ "PAYMENT-REQUIRED": requiredHeader(undefined) }), undefined)).toBeUndefined();
    expect(readPaymentRefusal(new Headers({ "PAYMENT-REQUIRED": requiredHeader("   ") }), undefined)).toBeUndefined();
    expect(readPaymentRefusal(new Headers({ "PAYMENT-REQUIRED": requiredHeader({ code: "x" }) }), undefined)).toBeUndefined();
    // A successful settlement claim is no refusal.
    const claimed = new Headers({
      "PAYMENT-RESPONSE": encodePaymentResponseHeader({ success: true, transaction: `0x${"ab".repeat(32)}`, network: "eip155:31337" } as never),
    });
    expect(readPaymentRefusal(claimed, undefined)).toBeUndefined();
  });

  it("bounds what it keeps: long reasons are cut, oversized headers are not decoded", () => {
    const long = `invalid_payload ${"x".repeat(10_000)}`;
    const reason = readPaymentRefusal(new Headers({ "PAYMENT-REQUIRED": requiredHeader(long) }), undefined)?.reason;
    expect(reason?.length).toBe(MAX_REFUSAL_REASON_CHARS);
    expect(reason?.startsWith("invalid_payload x")).toBe(true);
    const huge = new Headers({ "PAYMENT-REQUIRED": requiredHeader("x".repeat(MAX_REFUSAL_HEADER_CHARS)) });
    expect(readPaymentRefusal(huge, undefined)).toBeUndefined();
  });
});

describe("readResponseRefusal", () => {
  it("reads a v1 JSON body only when no header says why, and at most a bounded body", async () => {
    const v1 = new Response(JSON.stringify({ x402Version: 1, error: "invalid_exact_evm_payload_signature", accepts: [] }), {
      status: 402,
      headers: { "content-type": "application/json" },
    });
    expect(await readResponseRefusal(v1)).toEqual({ stage: "verification", reason: "invalid_exact_evm_payload_signature" });

    const oversized = new Response(JSON.stringify({ x402Version: 1, error: "insufficient_funds", padding: "x".repeat(MAX_REFUSAL_BODY_BYTES) }), {
      status: 402,
      headers: { "content-type": "application/json" },
    });
    expect(await readResponseRefusal(oversized)).toBeUndefined();

    const notJson = new Response("insufficient_funds", { status: 402, headers: { "content-type": "text/plain" } });
    expect(await readResponseRefusal(notJson)).toBeUndefined();
    expect(notJson.bodyUsed).toBe(false);

    const garbage = new Response("{not json", { status: 402, headers: { "content-type": "application/json" } });
    expect(await readResponseRefusal(garbage)).toBeUndefined();
  });

  it("leaves the body of a v2 answer unread", async () => {
    const v2 = new Response(JSON.stringify({ x402Version: 1, error: "from the body" }), {
      status: 402,
      headers: { "content-type": "application/json", "PAYMENT-REQUIRED": requiredHeader("invalid_exact_evm_signature") },
    });
    expect(await readResponseRefusal(v2)).toEqual({ stage: "verification", reason: "invalid_exact_evm_signature" });
    expect(v2.bodyUsed).toBe(false);
  });
});
