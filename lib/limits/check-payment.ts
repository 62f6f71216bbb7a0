/**
 * The per-payment and per-request spending limits as a pure decision. The daily limit is not
 * checked here: it spans instances and requests, so only the store's atomic reservation can
 * decide it (see lib/store, `SpendingLedger.reserve`).
 */
import type { EffectiveLimits } from "./spending-limits-input";

/** The limits this module decides, in the order they are checked. */
export type RequestScopedLimit = "perPayment" | "perRequest";

export type PaymentCheckInput = {
  /** The amount of the payment about to be signed, in base units. */
  amount: bigint;
  limits: EffectiveLimits;
  /**
   * What this chat request has already spent or reserved, in base units. Include payments
   * whose settlement is still pending: they may yet succeed, so they still count.
   */
  spentThisRequest: bigint;
};

export type PaymentCheck =
  | { ok: true }
  | {
      ok: false;
      limit: RequestScopedLimit;
      /** The limit that would be exceeded, in base units. */
      limitAmount: bigint;
      amount: bigint;
      spentThisRequest: bigint;
      /** How much more this limit would still allow in one payment (never negative). */
      remaining: bigint;
    };

/**
 * Decides whether a payment fits the per-payment and per-request limits. A payment exactly
 * equal to what is left is allowed; one base unit more is not.
 *
 * @throws RangeError when an amount is negative, which is a bug in the caller, not a refusal.
 * @example
 * const limits = { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 10_000_000n };
 * checkPayment({ amount: 500_000n, limits, spentThisRequest: 0n }); // { ok: true }
 * checkPayment({ amount: 1_500_000n, limits, spentThisRequest: 0n });
 * // { ok: false, limit: "perPayment", limitAmount: 1_000_000n, remaining: 1_000_000n, ... }
 */
export function checkPayment({ amount, limits, spentThisRequest }: PaymentCheckInput): PaymentCheck {
  if (amount < 0n) throw new RangeError("checkPayment: amount must not be negative");
  if (spentThisRequest < 0n) throw new RangeError("checkPayment: spentThisRequest must not be negative");
  if (limits.perPayment < 0n || limits.perRequest < 0n) throw new RangeError("checkPayment: limits must not be negative");

  if (amount > limits.perPayment) {
    return refuse("perPayment", limits.perPayment, amount, spentThisRequest, limits.perPayment);
  }
  const leftThisRequest = limits.perRequest - spentThisRequest;
  if (amount > leftThisRequest) {
    return refuse("perRequest", limits.perRequest, amount, spentThisRequest, leftThisRequest > 0n ? leftThisRequest : 0n);
  }
  return { ok: true };
}

function refuse(limit: RequestScopedLimit, limitAmount: bigint, amount: bigint, spentThisRequest: bigint, remaining: bigint): PaymentCheck {
  return { ok: false, limit, limitAmount, amount, spentThisRequest, remaining };
}
