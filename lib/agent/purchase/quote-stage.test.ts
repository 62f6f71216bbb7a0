/**
 * The quote stage's checks, as the purchase (first problem) and the MCP quote (every problem)
 * use them: limits, balance and the scheme's readiness, in that order.
 */
import { describe, expect, it } from "vitest";
import { selectPayableRequirement } from "../../x402/payment-requirements";
import { optionProblems, paymentProblems } from "./quote-stage";
import { PAYABLE_SCHEMES } from "./schemes/payment-schemes";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const extra = { name: "USD Coin", version: "2", assetTransferMethod: "permit2", facilitatorAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" };
const selection = selectPayableRequirement(
  { x402Version: 2, accepts: [{ scheme: "upto", network: "eip155:31337", amount: "2000000", asset: usdc, payTo, maxTimeoutSeconds: 60, extra }] },
  { networkNames: ["eip155:31337"], usdc },
  { schemes: PAYABLE_SCHEMES },
);
if (!selection.ok) throw new Error(selection.reason);
const option = selection.option;
const limits = { perPayment: 1_000_000n, perRequest: 5_000_000n, daily: 10_000_000n };

describe("the quote stage's checks", () => {
  it("reports every problem for a quote, and only the first for a purchase", async () => {
    const checks = {
      option,
      limits,
      spentThisRequest: 0n,
      balance: Promise.resolve(10n),
      readiness: Promise.resolve("not-approved" as const),
      payerKind: "agent" as const,
    };
    const all = await paymentProblems({ ...checks, all: true });
    expect(all.problems.map((problem) => problem.reason)).toEqual(["limit-exceeded", "insufficient-balance", "payment-failed"]);
    expect(all.problems[0]?.text).toBe("A ceiling of 2 USDC is over your per-payment limit of 1 USDC");
    expect(all.problems[2]?.text).toMatch(/not approved Permit2/);
    const first = await paymentProblems({ ...checks, all: false });
    expect(first.problems).toEqual([all.problems[0]]);
  });

  it("asks a person's wallet for the Permit2 approve instead of refusing it", async () => {
    const checked = await paymentProblems({
      option,
      limits: { ...limits, perPayment: 3_000_000n },
      spentThisRequest: 0n,
      balance: Promise.resolve(5_000_000n),
      readiness: Promise.resolve("not-approved"),
      payerKind: "user",
      all: true,
    });
    expect(checked).toMatchObject({ problems: [], permit2Missing: true, balance: 5_000_000n });
  });

  it("refuses a price over the listing for the agent, not for a person, who sees both", () => {
    const input = { service: "Meter", option, listedAmount: 1_000_000n };
    expect(optionProblems({ ...input, payerKind: "agent" }).map((problem) => problem.text)).toEqual([
      "Meter asks 2 USDC, more than the 1 USDC its listing advertised",
    ]);
    expect(optionProblems({ ...input, payerKind: "user" })).toEqual([]);
  });
});
