/**
 * What a retry of a purchase can and cannot do, told to the model with the outcome (docs/
 * decisions.md, "Safe retries: the payment identifier"). Never paying twice does not depend on
 * the service: one intent is one claim in the store (purchase-once.ts) and one EIP-3009 nonce
 * the token accepts once. The payment identifier adds the service's side: a service that
 * declared `payment-identifier` recognises a repeat of this intent and answers it with its
 * first result instead of charging again.
 */
import { paymentIdentifierIn } from "../../x402/payment-identifier";
import type { PurchaseOutcome, Quote } from "./purchase-types";

/** The outcome of a sent payment, naming the identifier it carried (when the service declared the extension). */
export function identifiedOutcome(outcome: PurchaseOutcome, quote: Pick<Quote, "extensions">): PurchaseOutcome {
  const paymentIdentifier = paymentIdentifierIn(quote.extensions);
  if (!paymentIdentifier) return outcome;
  switch (outcome.status) {
    case "delivered":
    case "failed":
    case "pending":
      return { ...outcome, paymentIdentifier };
    default:
      return outcome;
  }
}

export type RetryAdvice = {
  /** Calling again (now, or in a client retry of this request) can never pay this intent twice. */
  safe: true;
  /** The service deduplicates on our payment identifier (it declared the extension). */
  serviceDeduplicates: boolean;
  paymentIdentifier?: string;
  advice: string;
};

/**
 * Advice for outcomes whose money may have reached the service; undefined where nothing was
 * signed or the data was delivered (there is nothing to retry).
 */
export function retryAdviceFor(outcome: PurchaseOutcome | { status: "refused"; message: string }): RetryAdvice | undefined {
  if (outcome.status !== "pending" && outcome.status !== "failed") return undefined;
  const paymentIdentifier = outcome.paymentIdentifier;
  const serviceDeduplicates = paymentIdentifier !== undefined;
  const identity = serviceDeduplicates
    ? ` The service deduplicates on this purchase's payment identifier, so a later retry sends the same identifier and the service answers it with its first result instead of charging again.`
    : "";
  const advise = (advice: string): RetryAdvice => ({ safe: true, serviceDeduplicates, ...(paymentIdentifier ? { paymentIdentifier } : {}), advice });
  if (outcome.status === "pending") {
    return advise(
      `The outcome is not known yet and the chain decides it. Do not call the service again for this: the same call returns this same outcome and is never paid twice.${identity}`,
    );
  }
  if (outcome.txHash)
    return advise("This purchase is paid (the transaction is on chain). Calling again returns this recorded result; it is never paid a second time.");
  if (!serviceDeduplicates) return undefined;
  return advise(`Nothing was spent. The same call again in this request returns this same result; the user may retry the request later.${identity}`);
}
