/**
 * Claims a payment's room under the per-request limits (this process) and the daily limit
 * (the shared ledger), before anything is signed. Either both are held or neither is.
 */
import { AppError } from "../../errors";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import { formatUsdc } from "../../money";
import type { PaymentFailureReason } from "../../stream";
import type { PaymentTracker } from "./payment-tracker";
import type { PayerFunding, PurchaseDependencies, Quote } from "./purchase-types";

export type BudgetRefusal = { reason: PaymentFailureReason; message: string };

export async function reserveBudget(
  deps: Pick<PurchaseDependencies, "ledger">,
  request: { tracker: PaymentTracker; limits: EffectiveLimits; maxPayments: number; funding?: PayerFunding },
  quote: Quote,
  /** What a refusal means for the signature, said at the end of each message. */
  consequence = "nothing was signed",
): Promise<"ok" | BudgetRefusal> {
  const amount = quote.option.amount;
  const claimed = claimRequest(request, amount, consequence);
  if (claimed) return claimed;
  const daily = await reserveDaily(deps, quote, request.limits, consequence, request.funding?.budget);
  if (daily !== "ok") request.tracker.releaseRequestBudget(amount);
  return daily;
}

/** The daily budgets a payment counts against: the payer's cap, and a named caller's scope and pool (or a grant's budget). */
export function dailyBudgetsOf(limits: EffectiveLimits, funded?: PayerFunding["budget"]) {
  // A grant's budget takes the scope's place: the user pays from their own wallet, so there is
  // no named caller's share of the agent wallet to count beside it; the payer's limit is theirs.
  const { scope } = limits;
  return funded
    ? { payerLimit: limits.daily, scope: { key: funded.key, dailyLimit: funded.limit }, pool: undefined }
    : {
        payerLimit: scope ? scope.walletDailyCap : limits.daily,
        scope: scope ? { key: scope.key, dailyLimit: limits.daily } : undefined,
        pool: scope?.pool ? { key: scope.pool.key, dailyLimit: scope.pool.dailyLimit } : undefined,
      };
}

/** A daily budget's refusal of `amount`, in words that say whose budget ran out. */
export function dailyRefusal(
  result: { reason: "daily" | "scope" | "pool"; spent: bigint; reserved: bigint; dailyLimit: bigint },
  amount: bigint,
  limits: EffectiveLimits,
  consequence: string,
  funded?: PayerFunding["budget"],
): BudgetRefusal {
  const { scope } = limits;
  const used = `${formatUsdc(result.spent + result.reserved)} USDC used or reserved`;
  if (funded && result.reason === "scope") {
    return { reason: "limit-exceeded", message: `${formatUsdc(amount)} USDC would go over ${funded.label} (${used}); ${consequence}.` };
  }
  // Which limit stopped it, so the person (and the page) knows whose budget ran out.
  const which =
    result.reason === "pool" && scope?.pool
      ? `the daily limit of ${scope.pool.label}`
      : result.reason === "scope" && scope
        ? `the daily limit of ${scope.label}`
        : scope && !funded
          ? "the agent wallet's daily cap"
          : "the daily limit";
  return {
    reason: "limit-exceeded",
    message: `${formatUsdc(amount)} USDC would go over ${which}, ${formatUsdc(result.dailyLimit)} USDC (${used} in the last 24 h); ${consequence}.`,
  };
}

/** The per-request limit and payment count, claimed in this process; undefined when the claim holds. */
export function claimRequest(
  request: { tracker: PaymentTracker; limits: EffectiveLimits; maxPayments: number },
  amount: bigint,
  consequence: string,
): BudgetRefusal | undefined {
  const claim = request.tracker.claimRequestBudget(amount, request.limits.perRequest, request.maxPayments);
  if (claim === "count") return { reason: "limit-exceeded", message: `This request already made its ${request.maxPayments} payments; ${consequence}.` };
  if (claim === "amount") {
    return {
      reason: "limit-exceeded",
      message: `${formatUsdc(amount)} USDC would go over your per-request limit of ${formatUsdc(request.limits.perRequest)} USDC; ${consequence}.`,
    };
  }
  return undefined;
}

/**
 * Reserves against the payer's daily limit and, for a named caller, against the caller's own
 * daily budget and the agent wallet's overall cap, in one atomic step (see SpendingLedger).
 */
async function reserveDaily(
  deps: Pick<PurchaseDependencies, "ledger">,
  quote: Quote,
  limits: EffectiveLimits,
  consequence: string,
  /** A funded payer's own budget (a grant's), held in the same step. */
  funded?: PayerFunding["budget"],
): Promise<"ok" | BudgetRefusal> {
  const budgets = dailyBudgetsOf(limits, funded);
  try {
    const result = await deps.ledger.reserve({
      payer: quote.payer,
      reservationId: quote.nonce,
      amount: quote.option.amount,
      dailyLimit: budgets.payerLimit,
      ...(budgets.scope ? { scope: budgets.scope } : {}),
      ...(budgets.pool ? { pool: budgets.pool } : {}),
    });
    if (result.ok) return "ok";
    return dailyRefusal(result, quote.option.amount, limits, consequence, funded);
  } catch (error) {
    // Fail closed: without the ledger we cannot know the daily budget.
    const message = AppError.isInstance(error) ? error.safeMessage : "The spending ledger is unavailable.";
    return { reason: "payment-failed", message: `${message} ${consequence.charAt(0).toUpperCase()}${consequence.slice(1)}.` };
  }
}
