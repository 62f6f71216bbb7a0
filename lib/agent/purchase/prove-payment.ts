/**
 * After a paid request that may have reached the service did not deliver a proven settlement,
 * the chain decides. Used: the payment happened and is reported with its hash. Expired unused:
 * nothing was spent and the budget is given back. Still open when time runs out: the payment
 * stays reserved and is left to the reconciler (the journal says `pending`), never reported as
 * failed or unspent.
 */
import { readAuthorizationOutcome } from "./authorization-outcome";
import { formatUsdc } from "../../money";
import { describeExpiry, USER_SETTLEMENT_WATCH_MS } from "./authorization-window";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, PurchaseOutcome, Quote } from "./purchase-types";
import { reportConfirmed, reportFailure, stillUsable, subjectOf } from "./report-payment";
import { authorizationRefOf, settledPayment } from "./schemes/payment-schemes";

export type Unproven = {
  /** What went wrong, for people; service words in it are already wrapped. */
  message: string;
  /** A hash the service reported, shown while the chain is watched. */
  knownTxHash?: `0x${string}`;
};

export async function provePayment(
  deps: PurchaseDependencies,
  request: { tracker: PaymentTracker; deadline: number },
  quote: Quote,
  giveBack: () => Promise<void>,
  unproven: Unproven,
): Promise<PurchaseOutcome> {
  const now = deps.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = deps.reconcileIntervalMs ?? 500;
  const subject = subjectOf(quote);
  const hash = unproven.knownTxHash ? { txHash: unproven.knownTxHash } : {};
  // A user's signature outlives any request: watch a while for a late settlement, then hand over.
  const until = quote.payerKind === "user" ? Math.min(request.deadline, now() + USER_SETTLEMENT_WATCH_MS) : request.deadline;
  // Shown with the wait: the page counts down to the moment the authorization is void.
  const expiresAt = Number(quote.validBefore);
  let reportedPending = false;
  for (;;) {
    // The agent's authorization was signed in this request, on this instance's clock; a user's
    // was quoted by whichever instance answered request 1, so only the chain can judge it.
    const outcome = await readAuthorizationOutcome(deps.chain, authorizationRefOf(quote), now, quote.payerKind === "user" ? "chain" : "signer");
    if (outcome.state === "used" && outcome.txHash) {
      // A metered permit counts what its settlement moved (the chain's amount, not the ceiling).
      await reportConfirmed(deps, request.tracker, quote, outcome.txHash, settledPayment(quote, outcome.amount));
      return reportFailure(
        request.tracker,
        subject,
        "payment-failed",
        `${unproven.message} The payment did settle on chain, but no data was delivered.`,
        outcome.txHash,
      );
    }
    if (outcome.state === "expired-unused") {
      await giveBack();
      return reportFailure(request.tracker, subject, "payment-failed", `${unproven.message} The authorization expired unused, so nothing was spent.`);
    }
    if (now() + interval >= until) break;
    if (!reportedPending) {
      reportedPending = true;
      request.tracker.update({
        id: quote.id,
        status: "pending",
        service: quote.service,
        resource: quote.url,
        ...hash,
        expiresAt,
        message: `${unproven.message} ${whyWaiting(quote)}`,
      });
    }
    await sleep(interval);
  }
  // The journal now says `pending`: the reconciler takes it from there, and the reservation
  // stays held until the chain decides.
  const message = `${unproven.message} ${stillUsable(quote)}`;
  request.tracker.update({ id: quote.id, status: "pending", service: quote.service, resource: quote.url, ...hash, expiresAt, message });
  return { status: "pending", paymentId: quote.id, message, expiresAt, ...hash };
}

/**
 * Why the chain is watched and until when. The service may hold the signature whatever it
 * answered, so nothing is called unspent before the authorization's expiry; after it, nothing
 * can be spent.
 *
 * @example
 * whyWaiting(quote); // "The authorization stays usable until 2026-01-01 12:00:05 UTC and nothing can be spent with it after that: …"
 */
export function whyWaiting(quote: Quote): string {
  const expiry = describeExpiry(quote.validBefore);
  if (quote.payerKind === "user") {
    return `Your signature stays usable until ${expiry} and nothing can be spent with it after that; watching the chain for a settlement meanwhile…`;
  }
  return `The authorization stays usable until ${expiry} and nothing can be spent with it after that: waiting for the chain to show it unused (the reserved ${formatUsdc(quote.option.amount)} USDC is then given back) or used…`;
}
