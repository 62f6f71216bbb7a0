/**
 * Stage 1 of a purchase over HTTP: ask the service without paying. Its answer is free (served),
 * a readable x402 payment requirement, or a failure named for people. The purchase and the MCP
 * `quote` both start here, so they read a service's 402 the same way.
 */
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { readOptionalJson } from "../../net/read-optional-json";
import { readPaymentRequired } from "../../x402/payment-requirements";
import { describeFetchFailure, requestHeaders } from "./http-call";
import type { OutboundFetch, UnpaidAnswer, UnpaidRequest } from "./purchase-types";

export async function askWithoutPaying(fetch: OutboundFetch, request: UnpaidRequest): Promise<UnpaidAnswer> {
  const { service } = request;
  let first: Response;
  try {
    first = await fetch(request.url, {
      method: request.method,
      body: request.body,
      headers: requestHeaders(request.body, request.contentType),
      signal: request.signal,
    });
  } catch (error) {
    const refused = GuardedFetchError.find(error);
    if (refused?.code === "infrastructure" && !refused.requestMayHaveArrived) {
      // Named as what it is, so that neither the model nor the person takes it for a service that is down.
      const message = `Not called: ${new URL(request.url).host} is the payment network's own server (its chain RPC or facilitator), not a service. Nothing was sent, signed or paid.`;
      return { status: "failed", reason: "service-unavailable", message };
    }
    return {
      status: "failed",
      reason: "service-unavailable",
      message: `${service} could not be reached (${describeFetchFailure(error)}); nothing was signed.`,
    };
  }
  if (first.ok) return { status: "free", response: first };
  if (first.status !== 402) {
    await first.body?.cancel();
    return { status: "failed", reason: "service-unavailable", message: `${service} answered HTTP ${first.status} before any payment.` };
  }
  const paymentRequired = readPaymentRequired(first.headers, await readOptionalJson(first));
  if (!paymentRequired) return { status: "failed", reason: "payment-failed", message: `${service} sent a 402 without readable x402 payment requirements.` };
  return { status: "payment-required", paymentRequired };
}
