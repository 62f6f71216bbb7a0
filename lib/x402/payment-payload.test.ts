/**
 * The payload as it is sent: a v2 payload goes to the SDK's header encoder as the SDK's type,
 * echoing the service's requirement as the same object; a v1 payload goes in `X-PAYMENT`.
 */
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { acceptedRequirementsOf, paymentHeaderOf } from "./payment-payload";
import { selectPayableRequirement } from "./payment-requirements";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const network = { networkNames: ["eip155:31337", "local-v1"], usdc } as const;
const exact = {
  scheme: "exact",
  network: "eip155:31337",
  amount: "40000",
  asset: usdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
};

function optionOf(raw: Record<string, unknown>) {
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [raw] }, network);
  if (!selection.ok) throw new Error(selection.reason);
  return selection.option;
}

describe("the payment payload", () => {
  it("echoes the accepted requirement as the very object the service sent", () => {
    const option = optionOf({ ...exact, extra: { ...exact.extra, unknownField: [1, 2] } });
    expect(acceptedRequirementsOf(option)).toBe(option.requirements);
  });

  it("refuses a requirement that is not in the protocol's v2 shape", () => {
    expect(() => acceptedRequirementsOf({ ...optionOf(exact), requirements: { ...exact, network: "local-v1" } })).toThrow(TypeError);
  });

  it("reads no v2 option that names its network the v1 way, so none is ever refused after signing", () => {
    expect(selectPayableRequirement({ x402Version: 2, accepts: [{ ...exact, network: "local-v1" }] }, network).ok).toBe(false);
  });

  it("carries v2 in PAYMENT-SIGNATURE through the SDK's encoder, and v1 in X-PAYMENT", () => {
    const v2 = { x402Version: 2, accepted: acceptedRequirementsOf(optionOf(exact)), payload: { signature: "0x01" } };
    const header = paymentHeaderOf(v2);
    expect(header.header).toBe("PAYMENT-SIGNATURE");
    expect(decodePaymentSignatureHeader(header.value)).toEqual(v2);
    const v1 = { x402Version: 1 as const, scheme: "exact", network: "local-v1", payload: { signature: "0x02" } };
    expect(paymentHeaderOf(v1)).toEqual({ header: "X-PAYMENT", value: Buffer.from(JSON.stringify(v1)).toString("base64") });
  });
});
