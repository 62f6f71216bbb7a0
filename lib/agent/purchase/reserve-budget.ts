/**
 * Claims a payment's room under the per-request limits (this process) and the daily limit
 * (the shared ledger), before anything is signed. Either both are held or neither is.
 */
import { AppError } from "../../errors";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import { formatUsdc } from "../../money";
import type { PaymentFailureReason } from "../../stream";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, Quote } from "./purchase-types";

export type BudgetRefusal = { reason: PaymentFailureReason; message: string };

export async function reserveBudget(
  deps: Pick<PurchaseDependencies, "ledger">,
  request: { tracker: PaymentTracker; limits: EffectiveLimits; maxPayments: number },
  quote: Quote,
  /** What a refusal means for the signature, said at the end of each message. */
  consequence = "nothing was signed",
): Promise<"ok" | BudgetRefusal> {
  const amount = quote.option.amount;
  const claim = request.tracker.claimRequestBudget(amount, request.limits.perRequest, request.maxPayments);
  if (claim === "count") return { reason: "limit-exceeded", message: `This request already made its ${request.maxPayments} payments; ${consequence}.` };
  if (claim === "amount") {
    return {
      reason: "limit-exceeded",
      message: `${formatUsdc(amount)} USDC would go over your per-request limit of ${formatUsdc(request.limits.perRequest)} USDC; ${consequence}.`,
    };
  }
  const daily = await reserveDaily(deps, quote, request.limits, consequence);
  if (daily !== "ok") request.tracker.releaseRequestBudget(amount);
  return daily;
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
): Promise<"ok" | BudgetRefusal> {
  const { scope } = limits;
  try {
    const result = await deps.ledger.reserve({
      payer: quote.payer,
      reservationId: quote.nonce,
      amount: quote.option.amount,
      dailyLimit: scope ? scope.walletDailyCap : limits.daily,
      ...(scope ? { scope: { key: scope.key, dailyLimit: limits.daily } } : {}),
      ...(scope?.pool ? { pool: { key: scope.pool.key, dailyLimit: scope.pool.dailyLimit } } : {}),
    });
    if (result.ok) return "ok";
    // Which limit stopped it, so the person (and the page) knows whose budget ran out.
    const which =
      result.reason === "pool" && scope?.pool
        ? `the daily limit of ${scope.pool.label}`
        : result.reason === "scope" && scope
          ? `the daily limit of ${scope.label}`
          : scope
            ? "the agent wallet's daily cap"
            : "the daily limit";
    const used = `${formatUsdc(result.spent + result.reserved)} USDC used or reserved in the last 24 h`;
    return {
      reason: "limit-exceeded",
      message: `${formatUsdc(quote.option.amount)} USDC would go over ${which}, ${formatUsdc(result.dailyLimit)} USDC (${used}); ${consequence}.`,
    };
  } catch (error) {
    // Fail closed: without the ledger we cannot know the daily budget.
    const message = AppError.isInstance(error) ? error.safeMessage : "The spending ledger is unavailable.";
    return { reason: "payment-failed", message: `${message} ${consequence.charAt(0).toUpperCase()}${consequence.slice(1)}.` };
  }
}
