import "server-only";
/**
 * A URL that came neither from discovery nor from the user's words is paid by the agent wallet
 * only after the person's go-ahead: this asks for it, at most the per-payment limit, for the
 * exact request (method, URL, body) the model wanted to make.
 */
import type { EffectiveLimits } from "../limits/spending-limits-input";
import type { EncodedCall } from "./agent-run-types";
import { askConfirmation } from "./purchase/ask-confirmation";
import type { PaymentTracker } from "./purchase/payment-tracker";
import type { PurchaseDependencies } from "./purchase/run-purchase";

export function askGoAhead(deps: PurchaseDependencies, call: EncodedCall, run: { limits: EffectiveLimits; requestKey: string }, tracker: PaymentTracker) {
  return askConfirmation(deps, {
    service: new URL(call.url).host,
    url: call.url,
    method: call.method,
    body: call.body?.text,
    contentType: call.body?.contentType,
    maxAmount: run.limits.perPayment,
    requestKey: run.requestKey,
    tracker,
  });
}
