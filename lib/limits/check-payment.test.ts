import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkPayment } from "./check-payment";
import type { EffectiveLimits } from "./spending-limits-input";

const limits: EffectiveLimits = { perPayment: 1_000_000n, perRequest: 2_500_000n, daily: 10_000_000n };

describe("checkPayment", () => {
  it("allows a payment within both limits", () => {
    expect(checkPayment({ amount: 500_000n, limits, spentThisRequest: 0n })).toEqual({ ok: true });
  });

  it("allows a payment exactly equal to the per-payment limit", () => {
    expect(checkPayment({ amount: 1_000_000n, limits, spentThisRequest: 0n })).toEqual({ ok: true });
  });

  it("refuses one base unit over the per-payment limit", () => {
    expect(checkPayment({ amount: 1_000_001n, limits, spentThisRequest: 0n })).toEqual({
      ok: false,
      limit: "perPayment",
      limitAmount: 1_000_000n,
      amount: 1_000_001n,
      spentThisRequest: 0n,
      remaining: 1_000_000n,
    });
  });

  it("allows a payment that brings the request exactly to its limit", () => {
    expect(checkPayment({ amount: 500_000n, limits, spentThisRequest: 2_000_000n })).toEqual({ ok: true });
  });

  it("refuses a payment one base unit past the per-request limit and says what is left", () => {
    expect(checkPayment({ amount: 500_001n, limits, spentThisRequest: 2_000_000n })).toEqual({
      ok: false,
      limit: "perRequest",
      limitAmount: 2_500_000n,
      amount: 500_001n,
      spentThisRequest: 2_000_000n,
      remaining: 500_000n,
    });
  });

  it("reports the per-payment limit first when both are exceeded", () => {
    const result = checkPayment({ amount: 3_000_000n, limits, spentThisRequest: 2_500_000n });
    expect(result).toMatchObject({ ok: false, limit: "perPayment" });
  });

  it("reports nothing left (not a negative amount) once the request is over its limit", () => {
    const result = checkPayment({ amount: 1n, limits, spentThisRequest: 3_000_000n });
    expect(result).toMatchObject({ ok: false, limit: "perRequest", remaining: 0n });
  });

  it("treats a zero limit as 'no payments', while a free payment still passes", () => {
    const zero: EffectiveLimits = { perPayment: 0n, perRequest: 0n, daily: 0n };
    expect(checkPayment({ amount: 1n, limits: zero, spentThisRequest: 0n })).toMatchObject({ ok: false, limit: "perPayment" });
    expect(checkPayment({ amount: 0n, limits: zero, spentThisRequest: 0n })).toEqual({ ok: true });
  });

  it("ignores the daily limit, which the ledger enforces atomically", () => {
    const tinyDaily: EffectiveLimits = { ...limits, daily: 1n };
    expect(checkPayment({ amount: 1_000_000n, limits: tinyDaily, spentThisRequest: 0n })).toEqual({ ok: true });
  });

  it("refuses negative inputs as bugs", () => {
    expect(() => checkPayment({ amount: -1n, limits, spentThisRequest: 0n })).toThrow(RangeError);
    expect(() => checkPayment({ amount: 1n, limits, spentThisRequest: -1n })).toThrow(RangeError);
    expect(() => checkPayment({ amount: 1n, limits: { ...limits, perRequest: -1n }, spentThisRequest: 0n })).toThrow(RangeError);
  });

  it("allows exactly the payments with amount <= perPayment and spent + amount <= perRequest", () => {
    const base = fc.bigInt({ min: 0n, max: 10n ** 12n });
    fc.assert(
      fc.property(base, base, base, base, (amount, spentThisRequest, perPayment, perRequest) => {
        const result = checkPayment({ amount, spentThisRequest, limits: { perPayment, perRequest, daily: 0n } });
        const expected = amount <= perPayment && spentThisRequest + amount <= perRequest;
        expect(result.ok).toBe(expected);
        if (!result.ok) {
          expect(result.remaining).toBeGreaterThanOrEqual(0n);
          // What is left is less than the refused amount (or nothing, when the request is already over).
          expect(result.remaining < amount || result.remaining === 0n).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses even a free payment once the request is over its limit", () => {
    expect(checkPayment({ amount: 0n, limits, spentThisRequest: 3_000_000n })).toMatchObject({ ok: false, limit: "perRequest", remaining: 0n });
  });
});
