/**
 * The specification's 402 answers through our reader and our choice of option: what we would
 * pay (amount in base units), to whom, on which network, and what we refuse.
 */
import { describe, expect, it } from "vitest";
import { readPaymentRequired, selectPayableRequirement } from "@/lib/x402/payment-requirements";
import {
  v1PaymentRequiredBodies,
  v1SeveralAccepts,
  v2ExactRequirement,
  v2PaymentRequiredBody,
  v2PaymentRequiredHeader,
  v2Permit2BeforeEip3009,
  v2SeveralAccepts,
} from "./fixtures/payment-required";
import { SPEC, specPayer } from "./fixtures/spec-fixture";

/** Reads a 402 and chooses, failing loudly when either step refuses. */
function payableOption(headers: Headers, body: unknown) {
  const paymentRequired = readPaymentRequired(headers, body);
  if (!paymentRequired) throw new Error("the 402 was not read");
  const selection = selectPayableRequirement(paymentRequired, specPayer);
  if (!selection.ok) throw new Error(selection.reason);
  return { paymentRequired, option: selection.option };
}

describe(`${v2PaymentRequiredHeader.name} (${v2PaymentRequiredHeader.source})`, () => {
  const { header, body, decoded } = v2PaymentRequiredHeader.value;

  it("is read from the header, whatever the `{}` body beside it", () => {
    const { paymentRequired, option } = payableOption(new Headers({ "PAYMENT-REQUIRED": header }), body);
    expect(paymentRequired).toEqual(decoded);
    expect(option).toEqual({
      x402Version: 2,
      requirements: v2ExactRequirement,
      amount: 10_000n,
      asset: SPEC.usdc,
      payTo: SPEC.payTo,
      network: SPEC.network,
      maxTimeoutSeconds: 60,
      domain: { name: "USDC", version: "2" },
    });
  });

  it("wins over a v1 body sent beside it", () => {
    const v1Body = v1PaymentRequiredBodies[0]?.value;
    const { paymentRequired, option } = payableOption(new Headers({ "payment-required": header }), v1Body);
    expect(paymentRequired.x402Version).toBe(2);
    expect(option.network).toBe(SPEC.network);
  });
});

describe(`${v2PaymentRequiredBody.name} (${v2PaymentRequiredBody.source})`, () => {
  it("is read as a JSON body when no header carries it", () => {
    const { paymentRequired, option } = payableOption(new Headers(), v2PaymentRequiredBody.value);
    expect(paymentRequired).toMatchObject({ x402Version: 2, error: "PAYMENT-SIGNATURE header is required", resource: { url: SPEC.resource } });
    expect(option).toMatchObject({ x402Version: 2, amount: 10_000n, payTo: SPEC.payTo, network: SPEC.network, maxTimeoutSeconds: 60 });
  });

  it("keeps its `extensions` for what reads them later", () => {
    expect(readPaymentRequired(new Headers(), v2PaymentRequiredBody.value)).toHaveProperty("extensions", {});
  });
});

describe.each(v1PaymentRequiredBodies)("$name ($source)", (fixture) => {
  it("is read from the body: maxAmountRequired as the amount, the v1 network name as ours", () => {
    const { paymentRequired, option } = payableOption(new Headers(), fixture.value);
    expect(paymentRequired).toMatchObject({ x402Version: 1, error: fixture.value.error });
    expect(option).toMatchObject({
      x402Version: 1,
      amount: 10_000n,
      asset: SPEC.usdc,
      payTo: SPEC.payTo,
      network: SPEC.v1Network,
      maxTimeoutSeconds: 60,
      domain: { name: "USDC", version: "2" },
    });
    // The requirement is echoed back as the service sent it, `outputSchema: null` included.
    expect(option.requirements).toHaveProperty("outputSchema", null);
    expect(option.requirements).toHaveProperty("resource", SPEC.resource);
  });
});

describe(`${v2SeveralAccepts.name} (${v2SeveralAccepts.source})`, () => {
  it("passes over Solana, upto, another chain and a fiat asset to the exact USDC option on our chain", () => {
    const { option } = payableOption(new Headers(), v2SeveralAccepts.value);
    expect(option).toMatchObject({ amount: 10_000n, network: SPEC.network, payTo: SPEC.payTo, asset: SPEC.usdc });
    expect(option.requirements).toEqual((v2SeveralAccepts.value.accepts as unknown[])[4]);
  });

  it("explains, naming what was offered, when our option is not among them", () => {
    const others = { ...v2SeveralAccepts.value, accepts: (v2SeveralAccepts.value.accepts as unknown[]).slice(0, 4) };
    const paymentRequired = readPaymentRequired(new Headers(), others);
    expect(paymentRequired && selectPayableRequirement(paymentRequired, specPayer)).toEqual({
      ok: false,
      reason: `the service accepts no payment this deployment can make (offered: exact on ${SPEC.solanaMainnet}, upto on ${SPEC.network}, exact on ${SPEC.baseMainnet}, exact on ${SPEC.network})`,
    });
  });
});

describe(`${v1SeveralAccepts.name} (${v1SeveralAccepts.source})`, () => {
  it("chooses the base-sepolia option, not the cheaper ones on other chains", () => {
    const { option } = payableOption(new Headers(), v1SeveralAccepts.value);
    expect(option).toMatchObject({ x402Version: 1, amount: 25_000n, network: SPEC.v1Network });
  });

  it("refuses them all for a payer on another chain", () => {
    const paymentRequired = readPaymentRequired(new Headers(), v1SeveralAccepts.value);
    const elsewhere = { networkNames: ["eip155:43114", "avalanche"], usdc: SPEC.usdc } as const;
    expect(paymentRequired && selectPayableRequirement(paymentRequired, elsewhere).ok).toBe(false);
  });
});

describe("exact EVM transfer methods (specs/schemes/exact/scheme_exact_evm.md §AssetTransferMethod)", () => {
  // We sign EIP-3009 authorizations only: the spec's permit2 and erc7710 options need other
  // payloads, so a cheaper permit2 option is passed over, and one alone is not payable.
  it("chooses the eip3009 option over a cheaper permit2 one, and never a permit2 or erc7710 option alone", () => {
    const { option } = payableOption(new Headers(), v2Permit2BeforeEip3009.value);
    expect(option).toMatchObject({ amount: 10_000n, requirements: { extra: { assetTransferMethod: "eip3009" } } });
    const accepts = (v2Permit2BeforeEip3009.value as { accepts: Record<string, unknown>[] }).accepts;
    for (const method of ["permit2", "erc7710"]) {
      const alone = readPaymentRequired(new Headers(), {
        x402Version: 2,
        accepts: [{ ...accepts[0], extra: { assetTransferMethod: method, name: "USDC", version: "2" } }],
      });
      expect(alone && selectPayableRequirement(alone, specPayer).ok, method).toBe(false);
    }
  });
});
