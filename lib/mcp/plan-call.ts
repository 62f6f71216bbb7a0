import "server-only";
/**
 * A call to a service as the purchase path prepares it, before anything is asked of the
 * service: the body encoded the way the listing declared (or the caller named), and the call
 * checked against the listing's input contract. `quote` runs it; `buy` goes through the agent's
 * own purchase (AgentRun), which runs the same checks.
 */
import type { DiscoveryClient } from "../x402/discovery-client";
import type { ServiceListing } from "../x402/discovery-listing";
import { describeInputContract } from "../x402/call-usage";
import { checkCall, unfilledPathProblem } from "../x402/check-call";
import type { CallMethod } from "../x402/input-contract";
import { chooseBodyType, encodeRequestBody, type EncodedBody, type RequestBodyValue } from "../x402/request-body";
import type { BodyType } from "../x402/input-contract";

export type CallRequest = { url: string; method: CallMethod; body?: RequestBodyValue; bodyType?: BodyType };

export type PlannedCall = { url: string; method: CallMethod; listing: ServiceListing | undefined; body: EncodedBody | undefined };

export type CallPlan = { ok: true; call: PlannedCall } | { ok: false; message: string };

export function planCall(discovery: Pick<DiscoveryClient, "lookup">, request: CallRequest): CallPlan {
  const listing = discovery.lookup(request.url);
  const usage = listing?.input ? ` The service's usage: ${describeInputContract(listing.input)}` : "";
  const encoding =
    request.body === undefined ? undefined : encodeRequestBody(request.body, chooseBodyType(request.body, request.bodyType, listing?.input?.body?.type));
  if (encoding && !encoding.ok) return { ok: false, message: `Not called, nothing was paid: ${encoding.problem}.${usage}` };
  const body = encoding?.body;
  const contract = listing?.input;
  if (contract) {
    const check = checkCall(contract, { url: request.url, method: request.method, body: body?.text, contentType: body?.contentType });
    if (!check.ok) return { ok: false, message: `Not called, nothing was paid: ${check.problems.join("; ")}.${usage}` };
  } else {
    const unfilled = unfilledPathProblem(new URL(request.url));
    if (unfilled) return { ok: false, message: `Not called, nothing was paid: ${unfilled}; put the value in its place in the URL.` };
  }
  return { ok: true, call: { url: request.url, method: request.method, listing, body } };
}
