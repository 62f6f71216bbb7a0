/** A batch-settlement option read as the official server writes it, and what is not read. */
import { describe, expect, it } from "vitest";
import { selectPayableRequirement } from "../payment-requirements";
import { batchSettlementOffer, channelTermsOf } from "./batch-settlement-offer";
import { offerReaderFor } from "./offer-readers";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const PAYEE = "0x1111111111111111111111111111111111111111";
const AUTHORIZER = "0x2222222222222222222222222222222222222222";

/** The option of tick-feed's 402 in the local world, in the official server's words. */
function channelOption(extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheme: "batch-settlement",
    network: "eip155:84532",
    amount: "1000",
    asset: USDC,
    payTo: PAYEE,
    maxTimeoutSeconds: 300,
    extra: { name: "USDC", version: "2", minDeposit: "50000", receiverAuthorizer: AUTHORIZER, withdrawDelay: 900, ...extra },
    ...top,
  };
}

describe("the batch-settlement offer reader", () => {
  it("is registered under its name, and its amount is a price, not a ceiling", () => {
    expect(offerReaderFor("batch-settlement")).toBe(batchSettlementOffer);
    expect(batchSettlementOffer.metered).toBe(false);
  });

  it("reads the price, the payee, the token's domain and the channel's terms", () => {
    const raw = channelOption();
    const option = batchSettlementOffer.read(2, raw);
    expect(option).toMatchObject({ x402Version: 2, amount: 1000n, payTo: PAYEE, network: "eip155:84532", domain: { name: "USDC", version: "2" } });
    expect(option?.requirements).toBe(raw);
    expect(channelTermsOf(option!)).toEqual({ receiverAuthorizer: AUTHORIZER, withdrawDelay: 900, minDeposit: 50_000n });
  });

  it("leaves out a suggested deposit that is not a count of base units or is below one price", () => {
    expect(channelTermsOf(batchSettlementOffer.read(2, channelOption({ minDeposit: "lots" }))!).minDeposit).toBeUndefined();
    expect(channelTermsOf(batchSettlementOffer.read(2, channelOption({ minDeposit: "999" }))!).minDeposit).toBeUndefined();
    expect(channelTermsOf(batchSettlementOffer.read(2, channelOption({ minDeposit: undefined }))!).minDeposit).toBeUndefined();
  });

  it("does not read x402 v1, a zero or missing receiver authorizer, a withdraw delay out of the scheme's bounds, a Permit2 deposit, a free call", () => {
    expect(batchSettlementOffer.read(1, channelOption())).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({ receiverAuthorizer: "0x0000000000000000000000000000000000000000" }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({ receiverAuthorizer: undefined }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({ withdrawDelay: 899 }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({ withdrawDelay: "900" }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({ assetTransferMethod: "permit2" }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({}, { amount: "0" }))).toBeUndefined();
    expect(batchSettlementOffer.read(2, channelOption({}, { scheme: "exact" }))).toBeUndefined();
  });

  it("is chosen only where the payer can pay channels; elsewhere another option of the same service is", () => {
    const network = { networkNames: ["eip155:84532"], usdc: USDC } as const;
    const exact = { ...channelOption(), scheme: "exact", extra: { name: "USDC", version: "2" } };
    const both = { x402Version: 2 as const, accepts: [channelOption(), exact] };
    expect(selectPayableRequirement(both, network, { schemes: ["exact", "upto"] })).toMatchObject({ ok: true, option: { requirements: exact } });
    const only = { x402Version: 2 as const, accepts: [channelOption()] };
    expect(selectPayableRequirement(only, network, { schemes: ["exact", "upto"] }).ok).toBe(false);
    expect(selectPayableRequirement(only, network, { schemes: ["exact", "upto", "batch-settlement"] })).toMatchObject({ ok: true, option: { amount: 1000n } });
  });
});
