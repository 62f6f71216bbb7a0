import "server-only";
/**
 * A call the agent wallet would pay, to a URL of unknown origin (a service's answer or a page
 * put it in front of the model): nothing is asked of the service, reserved or signed. The
 * person sees the request and the most it may cost; their go-ahead comes back as a token over
 * these exact terms (agent-confirmation.ts) and is paid by run-confirmed-purchase.ts.
 */
import { createHash } from "node:crypto";
import { formatUsdc } from "../../money";
import type { AgentConfirmation } from "../../stream";
import { createConfirmationToken } from "../../x402/agent-confirmation";
import type { CallMethod } from "../../x402/input-contract";
import { DEFAULT_APPROVAL_TTL_SECONDS } from "./authorization-window";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, PurchaseOutcome } from "./purchase-types";

export type ConfirmationRequest = {
  service: string;
  url: string;
  method: CallMethod;
  body?: string;
  contentType?: string;
  /** Base units: the most the agent wallet may pay for it. */
  maxAmount: bigint;
  requestKey: string;
  tracker: PaymentTracker;
};

export function askConfirmation(deps: Pick<PurchaseDependencies, "quoteSecret" | "approvalTtlSeconds" | "now">, request: ConfirmationRequest): PurchaseOutcome {
  const now = deps.now;
  const expiresAt = Math.floor(now() / 1000) + (deps.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS);
  const terms = {
    v: 1 as const,
    requestKey: request.requestKey,
    method: request.method,
    url: request.url,
    ...(request.body === undefined ? {} : { body: request.body, contentType: request.contentType }),
    maxAmount: request.maxAmount.toString(),
    expiresAt,
  };
  const token = createConfirmationToken(terms, deps.quoteSecret);
  const maxAmount = formatUsdc(request.maxAmount);
  const confirmation: AgentConfirmation = { token, method: request.method, resource: request.url, maxAmount, expiresAt };
  const id = `ask_${createHash("sha256").update(token).digest("hex").slice(0, 24)}`;
  request.tracker.moneyless({
    id,
    status: "awaiting-approval",
    service: request.service,
    resource: request.url,
    confirmation,
    message: `${request.service}'s address came from a service's answer or a page, not from discovery or your words: nothing was asked of it. Approve the call (at most ${maxAmount} USDC from the agent wallet) to continue.`,
  });
  return { status: "awaiting-confirmation", paymentId: id, service: request.service, amount: maxAmount, confirmation };
}
