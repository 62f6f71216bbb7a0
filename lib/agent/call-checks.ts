/**
 * The checks a model's paid call passes before anything is asked of a service: what the
 * service's own declaration says cannot succeed, a path still holding a template placeholder,
 * and who may have the server call a URL no discovery listed. Each answers with the refusal's
 * words, or undefined when the call may go on; `refused` makes the outcome of one.
 */
import { describeInputContract } from "../x402/call-usage";
import { checkCall, unfilledPathProblem } from "../x402/check-call";
import type { ServiceListing } from "../x402/discovery-listing";
import { createHash } from "node:crypto";
import type { ChatMessage } from "../stream/chat-request";
import type { AgentDependencies } from "./agent-dependencies";
import type { EncodedCall, NamedCall, UnlistedCalls } from "./agent-run-types";
import type { FundedPayer, Payer, PurchaseOutcome } from "./purchase/purchase-types";

/**
 * Who pays: the wallet's grant (its payer key, funded from the wallet) when the door found one;
 * else the user's wallet, asked each time, when the request names one; else the agent wallet, if any.
 */
export function payerOf(
  input: { walletAddress: `0x${string}` | undefined; grantPayer?: FundedPayer },
  agentAccount: AgentDependencies["agentAccount"],
): Payer | undefined {
  if (input.grantPayer) return { kind: "agent", account: input.grantPayer.account, funding: input.grantPayer.funding };
  if (input.walletAddress) return { kind: "user", address: input.walletAddress };
  return agentAccount ? { kind: "agent", account: agentAccount } : undefined;
}

export const UNKNOWN_ORIGIN_UNDER_GRANT =
  "Not called, nothing was paid: under a grant the agent pays only services discovery listed or URLs you named yourself.";

export const NO_PAYER = "No agent wallet is configured, so the agent can discover and quote services but not pay. Connect a wallet to pay yourself.";

/** A call the service's declaration says cannot succeed, or an unfilled path (`/crypto/:symbol`), declared or not. */
export function declaredCallProblem(call: EncodedCall, listing: ServiceListing | undefined): string | undefined {
  const contract = listing?.input;
  if (contract) {
    const check = checkCall(contract, { url: call.url, method: call.method, body: call.body?.text, contentType: call.body?.contentType });
    return check.ok ? undefined : `Not called, nothing was paid: ${check.problems.join("; ")}. The service's usage: ${describeInputContract(contract)}`;
  }
  const unfilled = unfilledPathProblem(new URL(call.url));
  return unfilled ? `Not called, nothing was paid: ${unfilled}; put the value in its place in the URL.` : undefined;
}

/**
 * A URL no listing named is answered on the server's behalf (free or paid), so only callers
 * who may spend the agent wallet may have it called, each call counted in their window.
 */
export async function unlistedCallProblem(listing: ServiceListing | undefined, unlisted: UnlistedCalls | undefined): Promise<string | undefined> {
  if (listing || !unlisted) return undefined;
  if (!unlisted.allowed) {
    return "Not called: this deployment calls URLs that discovery did not list only for callers it knows (an API key, or a wallet signed in that the operator allows). Use a listed service, or sign in.";
  }
  if (!(await unlisted.count()))
    return "Not called: this caller has used up its requests for now (rate limit), or the limiter is unavailable. Try again in a minute.";
  return undefined;
}

/**
 * A conversation is named by its first user message, so every turn of it shares one id; a call
 * named as arguments (MCP `buy`) is a conversation of its own, named by the call.
 */
export function conversationIdOf(asked: { messages: ChatMessage[]; namedCall?: NamedCall }): string {
  const first = asked.namedCall
    ? `${asked.namedCall.method} ${asked.namedCall.url}`
    : (asked.messages.find((message) => message.role === "user")?.content ?? "");
  return createHash("sha256").update(first).digest("hex").slice(0, 24);
}

/** A refusal decided before anything was asked of a service: nothing was spent. */
export function refused(message: string): PurchaseOutcome {
  return { status: "refused", message };
}
