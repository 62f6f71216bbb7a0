/**
 * The one place a purchase reports a failure, a confirmed settlement or a hand-over to the
 * reconciler: the tracker (and so the stream) and the returned outcome always agree.
 */
import { formatUsdc } from "../../money";
import { explorerTransactionUrl } from "../../network-presets";
import type { PaymentFailureReason } from "../../stream";
import { describeExpiry } from "./authorization-window";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, PurchaseOutcome, Quote } from "./purchase-types";
import { settledFields, type SettledPayment } from "./upto-settlement";

export type Subject = { id: string; service: string; resource: string };

export function reportFailure(
  tracker: PaymentTracker,
  subject: Subject,
  reason: PaymentFailureReason,
  message: string,
  txHash?: `0x${string}`,
): PurchaseOutcome & { status: "failed" } {
  tracker.update({ id: subject.id, status: "failed", reason, message, service: subject.service, resource: subject.resource, ...(txHash ? { txHash } : {}) });
  return { status: "failed", paymentId: subject.id, reason, message, ...(txHash ? { txHash } : {}) };
}

export function subjectOf(quote: Quote): Subject {
  return { id: quote.id, service: quote.service, resource: quote.url };
}

/**
 * Records a settlement the chain has shown: the ledger commits it and the stream names its hash.
 * A metered payment (`settled`) commits what the chain shows it moved, and the rest of its
 * ceiling is free again, in the daily budgets and in this request's.
 */
export async function reportConfirmed(
  deps: PurchaseDependencies,
  tracker: PaymentTracker,
  quote: Quote,
  txHash: `0x${string}`,
  settled?: SettledPayment,
): Promise<void> {
  const amount = settled ? { amount: settled.amount } : {};
  await deps.ledger.commit(quote.nonce, { txHash, ...amount }).catch((error: unknown) => {
    // The reservation still holds the amount, so the budget stays safe; the log says why.
    deps.log?.({ level: "error", event: "ledger-commit-failed", paymentId: quote.id, txHash, error: String(error) });
  });
  if (settled) tracker.settleRequestBudget(quote.option.amount, settled.amount);
  tracker.update(
    {
      id: quote.id,
      status: "confirmed",
      service: quote.service,
      resource: quote.url,
      txHash,
      explorerUrl: explorerTransactionUrl(deps.network, txHash),
      message: settled?.review.message ?? `Paid ${formatUsdc(quote.option.amount)} USDC.`,
      ...settledFields(settled),
    },
    settled ? { amount: settled.amount } : undefined,
  );
}

/**
 * The words for a signature that may still be used: never "nothing was spent" while it lives.
 *
 * @example
 * stillUsable(quote); // "Not spent yet: your signature stays valid until 2026-01-01 12:05:00 UTC; …"
 */
export function stillUsable(quote: Quote): string {
  const whose = quote.payerKind === "user" ? "your signature" : "the agent's authorization";
  return `Not spent yet: ${whose} stays valid until ${describeExpiry(quote.validBefore)}, so ${formatUsdc(quote.option.amount)} USDC stays reserved until the chain shows it unused; it will not be paid again.`;
}
