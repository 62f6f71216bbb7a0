/**
 * The listing's price against the 402's: the agent never pays more than discovery advertised,
 * pays a lower price as quoted, and a user is shown both.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { agentRequest, chain, dependencies, events, resetPurchaseHarness, SETTLED, user } from "../../../tests/support/purchase-harness";
import { fakePaidService, paidAnswer } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { runPurchase } from "./run-purchase";

beforeEach(resetPurchaseHarness);

describe("the listing's price and the 402's", () => {
  it("the agent does not pay more than the listing advertised: refused before anything is signed", async () => {
    const service = fakePaidService(offlineNetwork, { amount: 20_000n, onPayment: () => paidAnswer(SETTLED, {}) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 10_000n }));
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: "Paid data asks 0.02 USDC, more than the 0.01 USDC its listing advertised; nothing was signed.",
    });
    expect(service.received).toEqual([]);
    expect(events.some((event) => event.payment.status === "signing")).toBe(false);
  });

  it("a lower price than listed is paid, and the quote says what the listing said", async () => {
    const service = fakePaidService(offlineNetwork, {
      amount: 10_000n,
      onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce, SETTLED), {}),
    });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 15_000n }));
    expect(outcome).toMatchObject({ status: "delivered", amount: "0.01" });
    expect(events.find((event) => event.payment.status === "quoted")?.payment.message).toBe("Paid data asks 0.01 USDC (its listing said 0.015 USDC).");
  });

  it("a user is shown both prices and decides", async () => {
    const service = fakePaidService(offlineNetwork, { amount: 20_000n, onPayment: () => paidAnswer(SETTLED, {}) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 10_000n, payer: { kind: "user", address: user.address } }));
    expect(outcome).toMatchObject({ status: "awaiting-approval", amount: "0.02" });
    expect(events.find((event) => event.payment.status === "awaiting-approval")?.payment.message).toBe(
      "Approve 0.02 USDC to Paid data in your wallet (its listing said 0.01 USDC).",
    );
  });
});
