/**
 * A metered service that says it used nothing: the `upto` scheme lets it settle 0 with no
 * transaction. The signed permit stays usable until its deadline all the same, so nothing is
 * called unspent before the chain shows it expired unused. The answer is read at once and
 * delivered when the chain has decided: unused, the reservation is given back and nothing was
 * paid; used after all, what the chain shows moved is committed and flagged (the service said
 * 0). An agent permit is short-lived so that this fits in the request (authorization-window.ts);
 * if time runs out all the same, the payment is handed to the reconciler like any undecided one.
 */
import { readAuthorizationOutcome } from "./authorization-outcome";
import { describeExpiry } from "./authorization-window";
import type { PaidRequest, PurchaseDependencies, PurchaseOutcome, Quote } from "./purchase-types";
import { reportConfirmed, reportFailure, stillUsable, subjectOf } from "./report-payment";
import { readServiceData, type ServiceData } from "./service-data";
import { meteredOutcome, settledFields } from "./upto-settlement";
import { authorizationRefOf, settledPayment } from "./schemes/payment-schemes";
import { formatUsdc } from "../../money";

export async function deliverUncharged(
  deps: PurchaseDependencies,
  request: PaidRequest,
  quote: Quote,
  response: Response,
  giveBack: () => Promise<void>,
): Promise<PurchaseOutcome> {
  const now = deps.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = deps.reconcileIntervalMs ?? 500;
  const { tracker } = request;
  const subject = subjectOf(quote);
  const data: ServiceData | undefined = await readServiceData(response).catch(() => undefined);
  const said = `${quote.service} says it used nothing and settled nothing`;
  const expiresAt = Number(quote.validBefore);
  let reportedPending = false;
  for (;;) {
    const outcome = await readAuthorizationOutcome(deps.chain, authorizationRefOf(quote), now, quote.payerKind === "user" ? "chain" : "signer");
    if (outcome.state === "used" && outcome.txHash) {
      const settled = settledPayment(quote, outcome.amount, { reported: 0n });
      await reportConfirmed(deps, tracker, quote, outcome.txHash, settled);
      if (!data) return reportFailure(tracker, subject, "payment-failed", `${said}, then settled on chain, and its answer could not be read.`, outcome.txHash);
      tracker.update({
        id: quote.id,
        status: "delivered",
        service: quote.service,
        resource: quote.url,
        message: `${quote.service} delivered its data.`,
        ...settledFields(settled),
      });
      const amount = settled?.review.amount ?? formatUsdc(quote.option.amount);
      return {
        status: "delivered",
        paymentId: quote.id,
        service: quote.service,
        resource: quote.url,
        amount,
        txHash: outcome.txHash,
        data,
        ...meteredOutcome(settled),
      };
    }
    if (outcome.state === "expired-unused") {
      await giveBack();
      if (!data)
        return reportFailure(tracker, subject, "payment-failed", `${said}, and its answer could not be read; the permit expired unused, so nothing was spent.`);
      tracker.update({
        id: quote.id,
        status: "delivered",
        service: quote.service,
        resource: quote.url,
        amount: "0",
        ceiling: formatUsdc(quote.option.amount),
        message: `${said}; its permit expired unused, so nothing was paid.`,
      });
      return { status: "free", service: quote.service, resource: quote.url, data };
    }
    if (now() + interval >= request.deadline) break;
    if (!reportedPending) {
      reportedPending = true;
      const message = `${said}; its permit stays usable until ${describeExpiry(quote.validBefore)}, so its answer is delivered once the chain shows it unused…`;
      tracker.update({ id: quote.id, status: "pending", service: quote.service, resource: quote.url, expiresAt, message });
    }
    await sleep(interval);
  }
  const message = `${said}. ${stillUsable(quote)}`;
  tracker.update({ id: quote.id, status: "pending", service: quote.service, resource: quote.url, expiresAt, message });
  return { status: "pending", paymentId: quote.id, message, expiresAt };
}
