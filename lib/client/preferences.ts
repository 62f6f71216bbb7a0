/**
 * The page's remembered choices: who pays, and the spending limits as typed. Limits are kept
 * as the raw text of each field so a half-typed value survives a reload; they are validated
 * with the server's own schema before every request.
 */
import { z } from "zod";
import { SpendingLimitsInput } from "@/lib/limits/spending-limits-input";
import { createLocalStore, useLocalStore } from "./local-store";

export const PayerMode = z.enum(["agent", "wallet"]);
export type PayerMode = z.infer<typeof PayerMode>;

export const LIMIT_FIELDS = ["perPayment", "perRequest", "daily"] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

export const LimitsDraft = z.object({
  perPayment: z.string().max(32),
  perRequest: z.string().max(32),
  daily: z.string().max(32),
});
export type LimitsDraft = z.infer<typeof LimitsDraft>;

const EMPTY_LIMITS: LimitsDraft = { perPayment: "", perRequest: "", daily: "" };
const DEFAULT_PAYER: PayerMode = "agent";

export const payerStore = createLocalStore("x402-agent.payer.v1", PayerMode, DEFAULT_PAYER);
export const limitsStore = createLocalStore("x402-agent.limits.v1", LimitsDraft, EMPTY_LIMITS);

export function usePayerMode(): PayerMode {
  return useLocalStore(payerStore, DEFAULT_PAYER);
}

export function useLimitsDraft(): LimitsDraft {
  return useLocalStore(limitsStore, EMPTY_LIMITS);
}

export type LimitsValidation = { ok: true; limits: SpendingLimitsInput | undefined } | { ok: false; errors: Partial<Record<LimitField, string>> };

/**
 * Validates the typed limits with SpendingLimitsInput, the schema the server applies.
 * An empty field means "use the server's default" and is left out of the request.
 */
export function validateLimitsDraft(draft: LimitsDraft): LimitsValidation {
  const candidate: Partial<Record<LimitField, string>> = {};
  for (const field of LIMIT_FIELDS) {
    const text = draft[field].trim();
    if (text !== "") candidate[field] = text;
  }
  const result = SpendingLimitsInput.safeParse(candidate);
  if (result.success) {
    return { ok: true, limits: Object.keys(result.data).length > 0 ? result.data : undefined };
  }
  const errors: Partial<Record<LimitField, string>> = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (field === "perPayment" || field === "perRequest" || field === "daily") errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
