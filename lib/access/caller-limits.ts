import "server-only";
/**
 * The limits a request runs under, from what the caller asked (`spendingLimits`) and what the
 * operator allows it. A caller can lower its limits, never raise them: an anonymous caller is
 * held to the server's caps, a named caller to its own budget, and what the agent wallet pays
 * for anyone is also held to the wallet's overall daily cap.
 */
import { resolveLimits, type EffectiveLimits, type LimitSettings, type SpendingLimitsInput } from "../limits/spending-limits-input";
import { formatUsdc, parseUsdc } from "../money";
import { budgetLabel, callerKey, type Caller } from "./caller";

export type LimitKey = "perPayment" | "perRequest" | "daily";

export type CallerLimits = {
  limits: EffectiveLimits;
  /** Where each limit came from: the caller's own request, the server's defaults or caps, or the caller's budget. */
  sources: Record<LimitKey, "requested" | "default" | "server cap" | "budget" | "wallet cap">;
  /** The limits the caller asked for above what it may have, lowered to it. */
  clamped: LimitKey[];
};

const KEYS: readonly LimitKey[] = ["perPayment", "perRequest", "daily"];

export function callerLimits(
  input: SpendingLimitsInput | undefined,
  settings: LimitSettings,
  caller: Caller,
  agentWallet: { pays: boolean; dailyCap: bigint },
): CallerLimits {
  // A named caller's budget is both its default and its ceiling, when the agent wallet pays.
  const budget = agentWallet.pays && caller.kind !== "anonymous" ? caller.budget : undefined;
  const effective: LimitSettings = budget ? { defaults: budget, caps: budget } : settings;
  const limits: EffectiveLimits = resolveLimits(input, effective);
  const sources = {} as CallerLimits["sources"];
  const clamped: LimitKey[] = [];
  for (const key of KEYS) {
    const raw = input?.[key];
    // Validated at the edge (SpendingLimitsInput), so a present value parses.
    const requested = raw === undefined ? undefined : parseUsdc(raw);
    const capped = requested !== undefined && requested > effective.caps[key];
    if (capped) clamped.push(key);
    sources[key] = capped ? (budget ? "budget" : "server cap") : requested !== undefined ? "requested" : budget ? "budget" : "default";
  }
  if (agentWallet.pays && limits.daily > agentWallet.dailyCap && !budget) {
    limits.daily = agentWallet.dailyCap;
    sources.daily = "wallet cap";
    if (input?.daily !== undefined && !clamped.includes("daily")) clamped.push("daily");
  }
  const key = budget ? callerKey(caller) : undefined;
  if (key) {
    const pool = caller.kind === "account" && caller.pool ? { ...caller.pool, label: "the budget all signed-in wallets share" } : undefined;
    limits.scope = { key, label: budgetLabel(caller), walletDailyCap: agentWallet.dailyCap, ...(pool ? { pool } : {}) };
  }
  return { limits, sources, clamped };
}

/**
 * The limits as a response header: each value in USDC and where it came from, and which
 * requested values were lowered, e.g. `per-payment=0.5 (budget), per-request=1 (budget),
 * daily=5 (budget); clamped=daily`.
 */
export function describeLimits({ limits, sources, clamped }: CallerLimits): string {
  const names: Record<LimitKey, string> = { perPayment: "per-payment", perRequest: "per-request", daily: "daily" };
  const values = KEYS.map((key) => `${names[key]}=${formatUsdc(limits[key])} (${sources[key]})`).join(", ");
  return clamped.length > 0 ? `${values}; clamped=${clamped.map((key) => names[key]).join(",")}` : values;
}
