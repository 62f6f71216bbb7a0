import "server-only";
/**
 * `buy`: pays a service from the agent wallet within the caller's limits and returns its data.
 * It is the chat's purchase, not a copy: an AgentRun (the same checks, limits, per-request
 * budget and tracker, reservation, at-most-once claim and journal as a payment the chat's model
 * asks for), with the tracker's progress heard as MCP progress (payment-listener.ts).
 */
import { AgentRun } from "../../agent/agent-run";
import type { PurchaseOutcome } from "../../agent/purchase/run-purchase";
import { FINISH_MARGIN_MS } from "../../agent/finish-margin";
import { CheckedRunListener } from "../../agent/run-listener";
import { describeOutcome } from "../../agent/describe-outcome";
import { unlistedCallsOf } from "../../doors/unlisted-calls";
import { explorerTransactionUrl } from "../../network-presets";
import { timeoutSignal } from "../../timeout";
import { limitsOf, requestKeyOf } from "../call-scope";
import { bodyText, carriesSecret, SECRET_REFUSAL } from "../content-check";
import { refreshListing } from "../known-listing";
import type { McpContext, McpToolCall } from "../mcp-context";
import type { BuyInput } from "../schemas";
import { toolResult } from "../tool-result";

export const BUY = {
  name: "buy",
  title: "Buy from a paid service",
  description:
    "Call a paid x402 HTTP service and pay for it in USDC from the agent wallet (or, when the request carries a grant's token, from the grant's wallet under that grant), within this caller's spending limits, and return its data with the amount paid, the transaction hash and the service's signed receipt when it sent one. Call it as the service's usage from discover_services says (query parameters in the URL, a body for services that take one). Spends money: pass an idempotencyKey to make a retry safe (the same key pays at most once). Limits, payee and amount are enforced by the server, whatever the arguments.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
} as const;

export async function buy(context: McpContext, input: BuyInput, call: McpToolCall) {
  const { deps } = context;
  if (carriesSecret(input.url, bodyText(input.body))) return toolResult({ status: "refused", message: SECRET_REFUSAL }, { isError: true });
  await refreshListing(deps.discovery, input.url, call.signal);
  const deadline = context.arrivedAt + deps.settings.deadlineMs;
  const requestKey = requestKeyOf(context, "buy", { idempotencyKey: input.idempotencyKey, requestId: call.requestId });
  // The tracker's steps go straight to MCP progress notifications (no stream bytes in between).
  const progress = new CheckedRunListener((event) => {
    if (event.type === "payment") call.progress(event.payment);
  });
  const run = new AgentRun(deps, {
    // No conversation: the caller named this exact request in its own arguments, as a person
    // names one in the chat (named-urls.ts), so the agent wallet pays it without a go-ahead,
    // which nobody could give here.
    messages: [],
    namedCall: { method: input.method, url: input.url },
    walletAddress: context.grant?.walletAddress,
    // maxPrice lowers the per-payment limit like a chat's spendingLimits, never raising it.
    limits: limitsOf(context, input.maxPrice === undefined ? undefined : { perPayment: input.maxPrice }).limits,
    writer: progress,
    deadline: deadline - FINISH_MARGIN_MS,
    requestKey,
    // The grant's token proved its wallet; without one the agent wallet pays.
    walletProven: context.grant !== undefined,
    grantPayer: context.grant?.payer,
    unlisted: unlistedCallsOf(deps, context.caller, context.clientKey),
  });
  // The call's whole time, as a chat run's: stopped when the purchase ends (lib/timeout.ts says why not AbortSignal.timeout).
  const timeout = timeoutSignal(Math.max(0, deadline - deps.now()));
  let outcome: PurchaseOutcome;
  try {
    outcome = await run.purchase({
      url: input.url,
      method: input.method,
      body: input.body === undefined ? undefined : { value: input.body, type: input.bodyType },
      // What the payment is for: one per request key, as a tool call id is in the chat.
      intent: requestKey,
      signal: AbortSignal.any([call.signal, timeout.signal]),
    });
  } finally {
    timeout.clear();
    await run.settleInFlight();
    // The journal holds every step before the answer says what happened, as before a chat's `d:`.
    await run.tracker.recorded();
  }
  const paymentId = "paymentId" in outcome ? outcome.paymentId : undefined;
  const ownSteps = progress.payments.filter((payment) => payment.id === paymentId);
  // A fresh payment is quoted first; a retry's recorded outcome is shown without its steps.
  const replayed = paymentId !== undefined && !ownSteps.some((payment) => payment.status === "quoted");
  const txHash = "txHash" in outcome ? outcome.txHash : undefined;
  const receipt = paymentId ? (await deps.store.journal.get(paymentId).catch(() => undefined))?.receipt : undefined;
  const summary = run.tracker.summaries.find((payment) => payment.id === paymentId);
  return toolResult(
    {
      ...describeOutcome(outcome),
      resource: input.url,
      method: input.method,
      ...(paymentId ? { paymentId, replayed } : {}),
      ...(summary?.amount ? { amount: summary.amount } : {}),
      ...(txHash ? { txHash, explorerUrl: explorerTransactionUrl(deps.network, txHash) ?? null } : {}),
      ...(receipt ? { receipt } : {}),
    },
    { isError: !notAFailure(outcome) },
  );
}

/** Paid, free, served by sign-in, or not yet decided by the chain (money possibly spent). */
function notAFailure(outcome: PurchaseOutcome): boolean {
  return outcome.status === "delivered" || outcome.status === "free" || outcome.status === "signed-in" || outcome.status === "pending";
}
