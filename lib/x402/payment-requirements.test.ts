import { encodePaymentRequiredHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { readPaymentRequired, selectPayableRequirement } from "./payment-requirements";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const network = { networkNames: ["eip155:31337", "anvil"], usdc } as const;

function v2Requirement(overrides: Record<string, unknown> = {}) {
  return {
    scheme: "exact",
    network: "eip155:31337",
    amount: "50000",
    asset: usdc,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

describe("readPaymentRequired", () => {
  it("reads the v2 PAYMENT-REQUIRED header before the body", () => {
    const paymentRequired = { x402Version: 2, resource: { url: "http://x/weather" }, accepts: [v2Requirement()] };
    const headers = new Headers({ "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired as never) });
    expect(readPaymentRequired(headers, { x402Version: 1, accepts: [] })).toMatchObject({ x402Version: 2, accepts: [v2Requirement()] });
  });

  it("reads a v1 body and refuses anything else", () => {
    const v1 = {
      x402Version: 1,
      accepts: [
        {
          scheme: "exact",
          network: "anvil",
          maxAmountRequired: "10000",
          asset: usdc,
          payTo,
          maxTimeoutSeconds: 60,
          resource: "http://x/v1",
          extra: { name: "USD Coin", version: "2" },
        },
      ],
    };
    expect(readPaymentRequired(new Headers(), v1)?.x402Version).toBe(1);
    expect(readPaymentRequired(new Headers(), { error: "pay me" })).toBeUndefined();
    expect(readPaymentRequired(new Headers({ "PAYMENT-REQUIRED": "%%%not-base64" }), undefined)).toBeUndefined();
  });
});

describe("selectPayableRequirement", () => {
  it("picks the cheapest exact USDC option on our network", () => {
    const result = selectPayableRequirement(
      {
        x402Version: 2,
        accepts: [
          v2Requirement({ amount: "90000" }),
          v2Requirement({ network: "eip155:8453", amount: "1" }),
          v2Requirement({ asset: "0x0000000000000000000000000000000000000001", amount: "2" }),
          v2Requirement({ scheme: "upto", amount: "3" }),
          v2Requirement({ amount: "40000" }),
        ],
      },
      network,
    );
    expect(result.ok && result.option.amount).toBe(40_000n);
  });

  it("reads v1 maxAmountRequired and explains a refusal", () => {
    const v1 = selectPayableRequirement(
      {
        x402Version: 1,
        accepts: [
          {
            scheme: "exact",
            network: "anvil",
            maxAmountRequired: "10000",
            asset: usdc,
            payTo,
            maxTimeoutSeconds: 30,
            extra: { name: "USD Coin", version: "2" },
          },
        ],
      },
      network,
    );
    expect(v1.ok && v1.option).toMatchObject({ x402Version: 1, amount: 10_000n, network: "anvil" });
    const none = selectPayableRequirement({ x402Version: 2, accepts: [v2Requirement({ network: "solana:mainnet" })] }, network);
    expect(none).toEqual({ ok: false, reason: expect.stringContaining("exact on solana:mainnet") });
  });

  it("ignores malformed options (negative, huge or non-numeric amounts, bad addresses)", () => {
    for (const bad of [{ amount: "-1" }, { amount: "1e6" }, { payTo: "0x123" }, { extra: {} }, { maxTimeoutSeconds: 0 }]) {
      expect(selectPayableRequirement({ x402Version: 2, accepts: [v2Requirement(bad)] }, network).ok).toBe(false);
    }
  });
});
