/**
 * The `spendingLimits` field of a chat request (docs/decisions.md, "Spending limits"). Shared by the server and
 * the browser's limits panel, so both validate the same way.
 */
import { z } from "zod";
import { parseUsdc } from "../money";

/** A USDC amount as a decimal string or a number: finite, >= 0, at most 6 decimals. */
export const UsdcAmountInput = z.union([z.string().max(32), z.number()]).refine((value) => parseUsdc(value) !== undefined, {
  message: "must be a USDC amount >= 0 with at most 6 decimals, e.g. 0.5",
});

export const SpendingLimitsInput = z.strictObject({
  perPayment: UsdcAmountInput.optional(),
  perRequest: UsdcAmountInput.optional(),
  daily: UsdcAmountInput.optional(),
});
export type SpendingLimitsInput = z.infer<typeof SpendingLimitsInput>;

/**
 * A named caller's own daily budget, counted apart from the payer's: a caller (an API key, a
 * signed-in wallet) spends the agent wallet within its own daily budget, and the agent wallet
 * keeps its overall cap over every caller together.
 */
export type BudgetScope = {
  /** The ledger key its spending is counted under, e.g. "key:<id>". */
  key: string;
  /** How the budget is named to a person, e.g. "the API key “ci”'s budget". */
  label: string;
  /** Base units: the agent wallet's daily cap over all callers. */
  walletDailyCap: bigint;
  /** A budget the caller shares with others of its kind, counted as well (e.g. every open sign-in). */
  pool?: { key: string; dailyLimit: bigint; label: string };
};

/** Limits in base units after defaults and server caps are applied. */
export type EffectiveLimits = { perPayment: bigint; perRequest: bigint; daily: bigint; scope?: BudgetScope };

/** The three limits themselves, in base units. */
export type LimitValues = Pick<EffectiveLimits, "perPayment" | "perRequest" | "daily">;

export type LimitSettings = {
  defaults: LimitValues;
  caps: LimitValues;
};

/**
 * Applies defaults where a limit is absent and clamps each to the server's cap, so a client
 * can lower its limits but never raise them past what the operator allows.
 */
export function resolveLimits(input: SpendingLimitsInput | undefined, settings: LimitSettings): EffectiveLimits {
  const pick = (key: keyof LimitValues): bigint => {
    const requested = input?.[key];
    const amount = requested === undefined ? settings.defaults[key] : (parseUsdc(requested) as bigint);
    return amount < settings.caps[key] ? amount : settings.caps[key];
  };
  return { perPayment: pick("perPayment"), perRequest: pick("perRequest"), daily: pick("daily") };
}
