import { parsePaymentPayload, parsePaymentRequirements } from "@x402/core/schemas";
import { describe, expect, it } from "vitest";
import { acceptChannelOperationTimeout } from "./channel-operation-envelope";

const requirements = {
  scheme: "batch-settlement",
  network: "eip155:31337",
  asset: "0x7ef8E99980Da5bcEDcF7C10f41E55f759F6A174B",
  amount: "0",
  payTo: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  maxTimeoutSeconds: 0,
  extra: {},
};
const envelope = (type: string, scheme = "batch-settlement") => ({
  paymentPayload: { x402Version: 2, accepted: { ...requirements, scheme }, payload: { type, receiver: requirements.payTo, token: requirements.asset } },
  paymentRequirements: { ...requirements, scheme },
});

describe("a channel manager's claim, settle or refund request", () => {
  it("is refused by @x402/core's schema as sent (maxTimeoutSeconds 0), and passes once the devnet accepts the 0", () => {
    const sent = envelope("settle");
    expect(parsePaymentPayload(sent.paymentPayload).success).toBe(false);
    const accepted = acceptChannelOperationTimeout(sent);
    expect(parsePaymentPayload(accepted.paymentPayload).success).toBe(true);
    expect(parsePaymentRequirements(accepted.paymentRequirements).success).toBe(true);
  });

  it("leaves every other request as it came: a buyer's voucher, another scheme", () => {
    for (const other of [envelope("voucher"), envelope("settle", "exact")]) expect(acceptChannelOperationTimeout(other)).toBe(other);
  });
});
