import "server-only";
/**
 * The second request of the approval flow: the user signed the frozen quote, and the route has
 * already checked signer, terms and expiry. Limits are checked and reserved again here, then
 * the payment is sent like any other: an `upto` permit at its ceiling, committed at what the
 * chain shows it settled (pay-and-deliver.ts, as for the agent wallet).
 */
import { checkPayment } from "../../limits/check-payment";
import { formatUsdc } from "../../money";
import { payAndDeliver } from "./pay-and-deliver";
import { paymentIdForNonce, type ApprovedPayment, type PurchaseDependencies, type PurchaseOutcome, type PurchaseRequest, type Quote } from "./purchase-types";
import { reportFailure, subjectOf } from "./report-payment";
import { reserveBudget } from "./reserve-budget";
import { journalTerms, schemeOf } from "./schemes/payment-schemes";

export async function runApprovedPurchase(
  deps: PurchaseDependencies,
  request: Omit<PurchaseRequest, "payer" | "intent" | "url" | "method" | "service" | "body" | "contentType"> & { payer: `0x${string}` },
  approved: ApprovedPayment,
): Promise<PurchaseOutcome> {
  const nonce = approved.nonce;
  const quote: Quote = {
    id: paymentIdForNonce(nonce),
    service: approved.service,
    url: approved.url,
    method: approved.method,
    body: approved.body,
    // Sent with the type the user approved (verify-approval.ts checked it against the nonce).
    contentType: approved.contentType,
    option: approved.option,
    resource: approved.resource,
    validAfter: approved.validAfter,
    validBefore: approved.validBefore,
    nonce,
    payer: request.payer,
    payerKind: "user",
    // What request 1 froze from the 402 and the user approved (verify-approval.ts checked it against the nonce).
    ...(approved.extensions === undefined ? {} : { extensions: approved.extensions }),
  };
  const amount = formatUsdc(approved.option.amount);
  const scheme = schemeOf(approved.option);
  request.tracker.update(
    {
      id: quote.id,
      status: "quoted",
      service: quote.service,
      resource: quote.url,
      amount,
      ...scheme.words.quoteFields(amount),
      asset: approved.option.asset,
      network: approved.option.network,
      payTo: approved.option.payTo,
      payer: request.payer,
      message: "You approved this payment.",
    },
    journalTerms(quote),
  );
  // Nothing has been sent yet: a refusal here leaves the user's signature unused with us.
  const check = checkPayment({ amount: approved.option.amount, limits: request.limits, spentThisRequest: request.tracker.committedAmount });
  if (!check.ok)
    return reportFailure(request.tracker, subjectOf(quote), "limit-exceeded", `${amount} USDC is over your spending limits; it was not sent to the service.`);
  // A permit can settle only what the wallet lets Permit2 move: asked again now (the wallet's
  // one-time approve may have come since the quote, or been revoked), before anything is held.
  const readiness = await scheme.readiness(deps.chain, request.payer, approved.option.amount);
  const notReady = readiness === undefined ? undefined : scheme.readinessProblem(readiness);
  if (notReady) return reportFailure(request.tracker, subjectOf(quote), "payment-failed", `${notReady}; your signature was not sent to the service.`);
  const reserved = await reserveBudget(deps, request, quote, "it was not sent to the service");
  if (reserved !== "ok") return reportFailure(request.tracker, subjectOf(quote), reserved.reason, reserved.message);
  return payAndDeliver(deps, request, quote, approved.typedData, approved.signature);
}
