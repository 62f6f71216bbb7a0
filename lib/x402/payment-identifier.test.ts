import { declarePaymentIdentifierExtension, extractPaymentIdentifier, isValidPaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { paymentIdentifierExtensions, paymentIdentifierFor, paymentIdentifierIn } from "./payment-identifier";

const SECRET = "a-quote-secret-for-tests-only-0123456789";

describe("paymentIdentifierFor", () => {
  it("gives the same intent the same identifier, every time", () => {
    const key = "purchase:idem:caller:msg-1:0f3c9a";
    expect(paymentIdentifierFor(SECRET, key)).toBe(paymentIdentifierFor(SECRET, key));
  });

  it("gives another intent, another request or another deployment another identifier", () => {
    const id = paymentIdentifierFor(SECRET, "purchase:req-1:aaaa");
    expect(paymentIdentifierFor(SECRET, "purchase:req-1:bbbb")).not.toBe(id);
    expect(paymentIdentifierFor(SECRET, "purchase:req-2:aaaa")).not.toBe(id);
    expect(paymentIdentifierFor(`${SECRET}x`, "purchase:req-1:aaaa")).not.toBe(id);
  });

  it("is valid for the spec: pay_ and 32 hex characters, nothing of the key in it", () => {
    const id = paymentIdentifierFor(SECRET, "purchase:wallet:0xabc:key-1:ffff");
    expect(isValidPaymentId(id)).toBe(true);
    expect(id).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(id).not.toContain("0xabc");
  });

  it("refuses an empty secret", () => {
    expect(() => paymentIdentifierFor("", "purchase:x:y")).toThrow();
  });
});

describe("paymentIdentifierExtensions", () => {
  const id = paymentIdentifierFor(SECRET, "purchase:req-1:aaaa");

  it("echoes the service's declaration with the id appended, leaving the 402 untouched", () => {
    const declared = declarePaymentIdentifierExtension(false);
    const paymentRequired = { x402Version: 2, accepts: [], extensions: { [PAYMENT_IDENTIFIER]: declared, bazaar: { info: {} } } };
    const extensions = paymentIdentifierExtensions(paymentRequired, id);
    expect(extensions).toEqual({ [PAYMENT_IDENTIFIER]: { ...declared, info: { required: false, id } } });
    expect(declared.info).toEqual({ required: false });
    expect(paymentIdentifierIn(extensions)).toBe(id);
    // What a service reads with the SDK.
    expect(extractPaymentIdentifier({ x402Version: 2, extensions } as unknown as PaymentPayload)).toBe(id);
  });

  it("sends nothing to a service that does not declare the extension", () => {
    expect(paymentIdentifierExtensions({ x402Version: 2, accepts: [] }, id)).toBeUndefined();
    expect(paymentIdentifierExtensions({ x402Version: 2, accepts: [], extensions: { bazaar: {} } }, id)).toBeUndefined();
    expect(paymentIdentifierExtensions({ x402Version: 1, accepts: [] }, id)).toBeUndefined();
    expect(paymentIdentifierExtensions({ x402Version: 2, accepts: [], extensions: { [PAYMENT_IDENTIFIER]: { info: "yes" } } }, id)).toBeUndefined();
    expect(
      paymentIdentifierExtensions({ x402Version: 2, extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension() } }, undefined),
    ).toBeUndefined();
  });
});
