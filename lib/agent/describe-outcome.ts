/**
 * How a purchase's outcome is told to whoever asked for it: the chat's model (as a tool result)
 * and an MCP client of `buy` (as its structured content) are told the same facts in the same
 * words, so neither door words an outcome its own way.
 */
import { asUntrustedData } from "./purchase/service-data";
import { retryAdviceFor } from "./purchase/retry-safety";
import type { PurchaseOutcome } from "./purchase/run-purchase";

/** What the caller is told about a purchase: data as data, failures as plain facts. */
export function describeOutcome(outcome: PurchaseOutcome | { status: "refused"; message: string }) {
  switch (outcome.status) {
    case "delivered":
      // A metered payment also says its ceiling and whether it was flagged as over-settled.
      return {
        status: "paid",
        service: outcome.service,
        amountUsdc: outcome.amount,
        // A voucher on a payment channel has no transaction of its own: the channel says where it went.
        ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
        ...(outcome.voucher ? { voucher: outcome.voucher } : {}),
        ...(outcome.metered ? { metered: outcome.metered } : {}),
        result: asUntrustedData(outcome.data),
      };
    case "free":
      return { status: "free", service: outcome.service, result: asUntrustedData(outcome.data) };
    case "signed-in":
      return {
        status: "already-paid",
        service: outcome.service,
        message: "Served by sign-in (sign-in-with-x): this wallet paid for this resource before, so nothing was paid now.",
        result: asUntrustedData(outcome.data),
      };
    case "awaiting-confirmation":
      return {
        status: "awaiting-approval",
        service: outcome.service,
        amountUsdc: outcome.amount,
        message: "This address did not come from discovery or the user's words: the user must approve the payment before the agent wallet pays.",
      };
    case "awaiting-approval":
      return {
        status: "awaiting-approval",
        service: outcome.service,
        amountUsdc: outcome.amount,
        message: "The user must approve this payment in their wallet.",
      };
    case "pending":
      return { status: "pending", message: outcome.message, retry: retryAdviceFor(outcome) };
    case "failed":
      return {
        status: "failed",
        reason: outcome.reason,
        message: outcome.message,
        ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
        ...withRetry(outcome),
      };
    case "refused":
      return { status: "refused", message: outcome.message };
  }
}

/** Whether calling again is safe, for outcomes whose money may have reached the service (retry-safety.ts). */
function withRetry(outcome: PurchaseOutcome): { retry?: ReturnType<typeof retryAdviceFor> } {
  const retry = retryAdviceFor(outcome);
  return retry ? { retry } : {};
}
