/**
 * The scheme registry: an option read from a 402 is paid by the scheme that owns it, each
 * scheme says its own words and journal terms, and the reconciler's journal rows find theirs.
 */
import { describe, expect, it } from "vitest";
import { selectPayableRequirement } from "../../../x402/payment-requirements";
import { journalTerms, PAYABLE_SCHEMES, schemeNamed, schemeOf, schemeOfAuthorization } from "./payment-schemes";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const facilitatorAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const network = { networkNames: ["eip155:31337"], usdc } as const;
const extra = { name: "USD Coin", version: "2" };
const exact = { scheme: "exact", network: "eip155:31337", amount: "40000", asset: usdc, payTo, maxTimeoutSeconds: 60, extra };
const upto = { ...exact, scheme: "upto", amount: "50000", extra: { ...extra, assetTransferMethod: "permit2", facilitatorAddress } };

function optionOf(raw: Record<string, unknown>) {
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [raw] }, network, { schemes: PAYABLE_SCHEMES });
  if (!selection.ok) throw new Error(selection.reason);
  return selection.option;
}

describe("payment schemes", () => {
  it("pays each option with the scheme that owns it, in its own words", () => {
    const metered = schemeOf(optionOf(upto));
    const priced = schemeOf(optionOf(exact));
    expect([priced.name, metered.name]).toEqual(["exact", "upto"]);
    expect(metered.words.asks("0.05")).toMatch(/^up to 0\.05 USDC, metered/);
    expect(priced.words.asks("0.04")).toBe("0.04 USDC");
    expect(metered.words.quoteFields("0.05")).toEqual({ ceiling: "0.05" });
    expect(priced.words.quoteFields("0.04")).toEqual({});
  });

  it("journals a metered quote's ceiling and scheme, and an exact one's price alone", () => {
    const window = {
      payer: payTo,
      nonce: `0x${"ab".repeat(32)}`,
      validAfter: 1n,
      validBefore: 2n,
      service: "s",
      resource: undefined,
      payerKind: "agent",
      method: "GET",
    } as const;
    expect(journalTerms({ ...window, option: optionOf(upto) })).toMatchObject({ amount: 50_000n, scheme: "upto", ceiling: 50_000n });
    expect(journalTerms({ ...window, option: optionOf(exact) })).not.toHaveProperty("scheme");
  });

  it("reads an authorization, and a journal row, by the scheme that signed it", () => {
    const terms = { payer: payTo, nonce: `0x${"cd".repeat(32)}`, validBefore: 9n, payTo } as const;
    const permit = schemeNamed("upto").authorizationRef(terms);
    const transfer = schemeNamed(undefined).authorizationRef(terms);
    expect(permit).toEqual({ payer: payTo, nonce: terms.nonce, validBefore: 9n, upto: { payTo } });
    expect(transfer).toEqual({ payer: payTo, nonce: terms.nonce, validBefore: 9n });
    expect(schemeOfAuthorization(permit).name).toBe("upto");
    expect(schemeOfAuthorization(transfer).name).toBe("exact");
  });
});
