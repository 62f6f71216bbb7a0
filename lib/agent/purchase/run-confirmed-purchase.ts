import "server-only";
/**
 * The second request of a go-ahead: the person approved a payment the agent wallet would make
 * to a URL of unknown origin (ask-confirmation.ts), and the verified token's request is made and
 * paid now by the agent wallet, through the whole purchase path (limits, budgets, payee policy,
 * proof on chain), for at most the approved amount.
 * A replayed token gets the recorded outcome of its first use, never a second payment.
 */
import { createHash } from "node:crypto";
import type { LocalAccount } from "viem";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import type { IdempotencyStore } from "../../store/store-types";
import { canonicalJson } from "../../x402/authorization-nonce";
import type { ConfirmedTerms } from "../../x402/agent-confirmation";
import { isCallMethod } from "../../x402/input-contract";
import { paymentIdentifierFor } from "../../x402/payment-identifier";
import { RequestContentType } from "../../x402/request-body";
import { purchaseOnce } from "./purchase-once";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, PurchaseOutcome } from "./purchase-types";
import { runPurchase } from "./run-purchase";

export type ConfirmedRequest = {
  account: LocalAccount;
  limits: EffectiveLimits;
  maxPayments: number;
  tracker: PaymentTracker;
  deadline: number;
  signal?: AbortSignal;
};

export function runConfirmedPurchase(
  deps: PurchaseDependencies,
  store: IdempotencyStore,
  terms: ConfirmedTerms,
  request: ConfirmedRequest,
): Promise<PurchaseOutcome | { status: "refused"; message: string }> {
  const method = terms.method;
  if (!isCallMethod(method)) return Promise.resolve({ status: "refused", message: "The approved request's method is not one the agent calls." });
  const contentType = terms.contentType === undefined ? undefined : RequestContentType.safeParse(terms.contentType);
  if (contentType && !contentType.success)
    return Promise.resolve({ status: "refused", message: "The approved request's content type is not one the agent sends." });
  const intent = createHash("sha256").update(canonicalJson(terms)).digest("hex").slice(0, 32);
  const key = `confirmation:${intent}`;
  return purchaseOnce({ store, key, tracker: request.tracker }, () =>
    runPurchase(deps, {
      // The URL came from the tool's checked input and back in our own HMAC-bound token.
      service: new URL(terms.url).host,
      url: terms.url,
      method,
      body: terms.body,
      ...(contentType?.success ? { contentType: contentType.data } : {}),
      // The approved most is what may be paid: a higher 402 is refused before signing.
      listedAmount: BigInt(terms.maxAmount),
      intent,
      paymentIdentifier: paymentIdentifierFor(deps.quoteSecret, key),
      payer: { kind: "agent", account: request.account },
      limits: request.limits,
      maxPayments: request.maxPayments,
      tracker: request.tracker,
      deadline: request.deadline,
      signal: request.signal,
    }),
  );
}
