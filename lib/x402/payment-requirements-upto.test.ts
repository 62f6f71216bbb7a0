/**
 * Choosing between `exact` and `upto` (docs/decisions.md, "Metered payments: upto"): exact when
 * its price fits the limits, else upto when its ceiling fits; upto also when its ceiling is below
 * the exact price; upto only where the payer can sign it, and only a well-formed v2 upto option.
 */
import { describe, expect, it } from "vitest";
import { selectPayableRequirement } from "./payment-requirements";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const facilitatorAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const network = { networkNames: ["eip155:31337"], usdc } as const;
const both = { schemes: ["exact", "upto"] } as const;

const exact = (amount: string) => ({
  scheme: "exact",
  network: "eip155:31337",
  amount,
  asset: usdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
});
const upto = (amount: string, extra: Record<string, unknown> = {}) => ({
  scheme: "upto",
  network: "eip155:31337",
  amount,
  asset: usdc,
  payTo,
  maxTimeoutSeconds: 120,
  extra: { name: "USD Coin", version: "2", assetTransferMethod: "permit2", facilitatorAddress, metering: { unit: "row", unitPrice: "500" }, ...extra },
});
const within = (limit: bigint) => (amount: bigint) => amount <= limit;

describe("selecting between exact and upto", () => {
  it("takes exact when its price fits, upto when only the ceiling fits, and exact for the refusal when neither does", () => {
    const offer = { x402Version: 2 as const, accepts: [upto("50000"), exact("40000")] };
    const pick = (limit: bigint) => {
      const selection = selectPayableRequirement(offer, network, { ...both, fits: within(limit) });
      return selection.ok ? [selection.option.upto ? "upto" : "exact", selection.option.amount] : undefined;
    };
    expect(pick(1_000_000n)).toEqual(["exact", 40_000n]);
    expect(pick(40_000n)).toEqual(["exact", 40_000n]);
    // Below the exact price nothing fits: exact is returned for the limit check to refuse by name.
    expect(pick(30_000n)).toEqual(["exact", 40_000n]);
    const cheaperCeiling = { x402Version: 2 as const, accepts: [exact("60000"), upto("50000")] };
    const chosen = (limit: bigint) => {
      const selection = selectPayableRequirement(cheaperCeiling, network, { ...both, fits: within(limit) });
      return selection.ok ? [selection.option.upto ? "upto" : "exact", selection.option.amount] : undefined;
    };
    // The exact price is over the limit and the ceiling fits.
    expect(chosen(55_000n)).toEqual(["upto", 50_000n]);
    // Both fit: the ceiling is below the exact price, so upto's worst case is the cheaper one.
    expect(chosen(1_000_000n)).toEqual(["upto", 50_000n]);
    expect(chosen(10_000n)).toEqual(["exact", 60_000n]);
  });

  it("reads the upto terms: ceiling, facilitator and the quoted unit price", () => {
    const selection = selectPayableRequirement({ x402Version: 2, accepts: [upto("50000")] }, network, both);
    expect(selection.ok && selection.option).toMatchObject({ amount: 50_000n, upto: { facilitator: facilitatorAddress, unitPrice: 500n }, x402Version: 2 });
    const noMetering = selectPayableRequirement({ x402Version: 2, accepts: [upto("50000", { metering: undefined })] }, network, both);
    expect(noMetering.ok && noMetering.option.upto).toEqual({ facilitator: facilitatorAddress });
  });

  it("offers upto only to a payer that can sign it, and never for x402 v1 or a malformed option", () => {
    expect(selectPayableRequirement({ x402Version: 2, accepts: [upto("50000")] }, network).ok).toBe(false);
    expect(selectPayableRequirement({ x402Version: 2, accepts: [upto("50000"), exact("70000")] }, network)).toMatchObject({
      ok: true,
      option: { amount: 70_000n },
    });
    expect(selectPayableRequirement({ x402Version: 1, accepts: [{ ...upto("50000"), maxAmountRequired: "50000" }] }, network, both).ok).toBe(false);
    for (const extra of [{ facilitatorAddress: undefined }, { facilitatorAddress: "0x12" }, { assetTransferMethod: "eip3009" }, { name: undefined }]) {
      expect(selectPayableRequirement({ x402Version: 2, accepts: [upto("50000", extra)] }, network, both).ok).toBe(false);
    }
    // An unknown scheme is not taken for exact.
    expect(selectPayableRequirement({ x402Version: 2, accepts: [{ ...exact("1"), scheme: "stream" }] }, network, both).ok).toBe(false);
  });
});
