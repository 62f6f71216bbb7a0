/**
 * The offer read whole: `extra.paymentFlow` decides whether an option is paid. A flow the
 * scheme does not implement is dropped with a reason, an unknown one too, `authorization`
 * (or no flow) is preferred where it remains, and an `upfront` option is marked for the quote.
 */
import { describe, expect, it } from "vitest";
import { selectPayableRequirement } from "./payment-requirements";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const network = { networkNames: ["eip155:31337"], usdc } as const;
const both = { schemes: ["exact", "upto"] } as const;

const exact = (amount: string, paymentFlow?: unknown) => ({
  scheme: "exact",
  network: "eip155:31337",
  amount,
  asset: usdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2", ...(paymentFlow === undefined ? {} : { paymentFlow }) },
});
const upto = (amount: string, paymentFlow?: string) => ({
  ...exact(amount),
  scheme: "upto",
  extra: { name: "USD Coin", version: "2", facilitatorAddress: payTo, ...(paymentFlow === undefined ? {} : { paymentFlow }) },
});
const pick = (...accepts: Record<string, unknown>[]) => selectPayableRequirement({ x402Version: 2, accepts }, network, both);

describe("an offer's payment flow", () => {
  it("pays authorization, or no flow, as before", () => {
    expect(pick(exact("1000"))).toMatchObject({ ok: true, option: { amount: 1000n } });
    expect(pick(exact("1000", "authorization"))).toMatchObject({ ok: true, option: { amount: 1000n } });
    const plain = pick(exact("1000"));
    expect(plain.ok && plain.option.upfront).toBeUndefined();
  });

  it("prefers authorization over a cheaper upfront option, and marks an upfront option when it is the only one", () => {
    expect(pick(exact("500", "upfront"), exact("1000", "authorization"))).toMatchObject({ ok: true, option: { amount: 1000n } });
    expect(pick(exact("500", "upfront"))).toMatchObject({ ok: true, option: { amount: 500n, upfront: true } });
  });

  it("drops a flow the scheme does not implement (escrow; upfront for upto) and a flow x402 does not name, saying why", () => {
    const escrow = pick(exact("1000", "escrow"));
    expect(escrow).toEqual({ ok: false, reason: "the service asks for a payment flow this agent does not implement (escrow)" });
    expect(pick(upto("1000", "upfront"))).toMatchObject({ ok: false, reason: expect.stringContaining("(upfront)") });
    expect(pick(exact("1000", "pay-later"))).toMatchObject({ ok: false, reason: expect.stringContaining("pay-later") });
    expect(pick(exact("1000", { evil: true }))).toMatchObject({ ok: false });
    // A payable option beside them is chosen.
    expect(pick(exact("900", "escrow"), upto("2000"))).toMatchObject({ ok: true, option: { amount: 2000n } });
  });
});
