import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { describe, expect, it } from "vitest";
import type { PurchaseOutcome } from "./purchase-types";
import { identifiedOutcome, retryAdviceFor } from "./retry-safety";

const ID = "pay_0123456789abcdef0123456789abcdef";
const sent = { extensions: { [PAYMENT_IDENTIFIER]: { ...declarePaymentIdentifierExtension(false), info: { required: false, id: ID } } } };

describe("identifiedOutcome", () => {
  it("names the identifier on outcomes of a payment that carried one", () => {
    const pending: PurchaseOutcome = { status: "pending", paymentId: "pay_1", message: "Not spent yet.", expiresAt: 1 };
    expect(identifiedOutcome(pending, sent)).toMatchObject({ paymentIdentifier: ID });
    expect(identifiedOutcome(pending, { extensions: undefined })).toEqual(pending);
  });
});

describe("retryAdviceFor", () => {
  it("tells the model a pending payment is never paid twice, and that the service deduplicates", () => {
    const advice = retryAdviceFor({ status: "pending", paymentId: "pay_1", message: "m", expiresAt: 1, paymentIdentifier: ID });
    expect(advice).toMatchObject({ safe: true, serviceDeduplicates: true, paymentIdentifier: ID });
    expect(advice?.advice).toMatch(/never paid twice/);
  });

  it("says a paid outcome is not paid again, with or without deduplication", () => {
    expect(retryAdviceFor({ status: "failed", paymentId: "pay_1", reason: "payment-failed", message: "m", txHash: "0x1" })).toMatchObject({
      safe: true,
      serviceDeduplicates: false,
    });
  });

  it("gives no advice where nothing reached a service or the data arrived", () => {
    expect(retryAdviceFor({ status: "refused", message: "no" })).toBeUndefined();
    expect(retryAdviceFor({ status: "failed", paymentId: "pay_1", reason: "limit-exceeded", message: "over" })).toBeUndefined();
  });
});
