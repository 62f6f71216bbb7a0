import "server-only";
/**
 * `quote`: what a call would cost now and whether this caller's limits allow it. The service is
 * asked once without payment; nothing is signed, reserved or journaled.
 */
import { unlistedCallsOf } from "../../doors/unlisted-calls";
import { limitsOf } from "../call-scope";
import { bodyText, carriesSecret, SECRET_REFUSAL } from "../content-check";
import { refreshListing } from "../known-listing";
import type { McpContext, McpToolCall } from "../mcp-context";
import { planCall } from "../plan-call";
import { quoteCall } from "../quote-call";
import type { QuoteInput } from "../schemas";
import { toolResult } from "../tool-result";

export const QUOTE = {
  name: "quote",
  title: "Quote a paid service",
  description:
    "Ask a paid x402 HTTP service what a call costs, without paying: the price in USDC, the network, the payee, and whether this caller's limits (per payment, per request, daily), the operator's payee policy and the agent wallet's balance allow it. Nothing is signed or reserved; the service receives one unpaid request.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
} as const;

export async function quote(context: McpContext, input: QuoteInput, call: McpToolCall) {
  const { deps } = context;
  if (carriesSecret(input.url, bodyText(input.body))) return toolResult({ status: "refused", message: SECRET_REFUSAL }, { isError: true });
  await refreshListing(deps.discovery, input.url, call.signal);
  const plan = planCall(deps.discovery, input);
  if (!plan.ok) return toolResult({ status: "refused", message: plan.message }, { isError: true });
  const outcome = await quoteCall(deps, {
    call: plan.call,
    limits: limitsOf(context, undefined).limits,
    unlisted: unlistedCallsOf(deps, context.caller, context.clientKey),
    signal: call.signal,
  });
  return toolResult(outcome, { isError: outcome.status === "refused" || outcome.status === "unavailable" });
}
