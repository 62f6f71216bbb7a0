/**
 * Asks a listed service, unpaid, what it would take to buy it, the way its example call says:
 * whether it answers at all, whether its 402 comes in time, parses with the x402 SDK's own
 * schemas, offers terms this deployment can pay (our network, our USDC, a scheme we sign), and
 * asks no more than it lists. Nothing is ever paid or signed here; every request goes through
 * the fetch given (the guarded service fetch in production).
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { parsePaymentRequired } from "@x402/core/schemas";
import { formatUsdc } from "../money";
import { readOptionalJson } from "../net/read-optional-json";
import { timeoutSignal } from "../timeout";
import { exampleCall } from "../x402/call-usage";
import type { ServiceListing } from "../x402/discovery-listing";
import { readPaymentRequired, selectPayableRequirement, type PayableNetwork } from "../x402/payment-requirements";
import type { ProbeFinding } from "./evidence-store";

export type ProbeFetch = (url: string, init: RequestInit) => Promise<Response>;

/** The longest a probe waits: a service this slow would not make a good first impression either. */
export const PROBE_TIMEOUT_MS = 3_000;

export type ProbedListing = Pick<ServiceListing, "resource" | "input" | "amount">;

/**
 * The service's unpaid answer (its body not read), or undefined when none came in time. The
 * caller reads or cancels the body; the timeout covers the answer's head only.
 */
export async function askUnpaid(
  fetch: ProbeFetch,
  listing: Pick<ServiceListing, "resource" | "input">,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Response | undefined> {
  const call = listing.input ? exampleCall(listing.resource, listing.input) : undefined;
  const method: string = call?.method ?? "GET";
  const body = call?.body === undefined ? undefined : JSON.stringify(call.body);
  const timeout = timeoutSignal(timeoutMs);
  try {
    return await fetch(call?.url ?? listing.resource, {
      method,
      body,
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      redirect: "manual",
      signal: timeout.signal,
    });
  } catch {
    return undefined;
  } finally {
    timeout.clear();
  }
}

/**
 * @example
 * await probeListing(fetch, listing, network); // { verdict: "price-above-listing", detail: "asks 0.002 USDC, lists 0.001 USDC", latencyMs: 14 }
 */
export async function probeListing(fetch: ProbeFetch, listing: ProbedListing, network: PayableNetwork, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeFinding> {
  const started = performance.now();
  const response = await askUnpaid(fetch, listing, timeoutMs);
  const latencyMs = Math.round(performance.now() - started);
  if (!response) return { verdict: "unreachable", detail: `no answer within ${timeoutMs} ms`, latencyMs, transient: true };
  if (response.status !== 402) {
    await response.body?.cancel().catch(() => undefined);
    // Free without payment: nothing to pay, so nothing to lose by choosing it.
    if (response.ok) return { verdict: "buyable", detail: "answers without payment", latencyMs };
    // A 5xx or 429 may pass (an overloaded or restarting server); a 404 or 405 says the listed call is wrong.
    const transient = response.status >= 500 || response.status === 429;
    return { verdict: "failing", detail: `answers ${response.status} before any payment`, latencyMs, ...(transient ? { transient } : {}) };
  }
  const body = await readOptionalJson(response);
  return { ...judgeTerms(response.headers, body, listing, network), latencyMs };
}

/** A 402's terms against the listing and what this deployment pays. */
export function judgeTerms(headers: Headers, body: unknown, listing: Pick<ServiceListing, "amount">, network: PayableNetwork): Omit<ProbeFinding, "latencyMs"> {
  if (!parsesWithSdk(headers, body)) return { verdict: "unpayable", detail: "its 402 fails the x402 SDK's schemas" };
  const paymentRequired = readPaymentRequired(headers, body);
  if (!paymentRequired) return { verdict: "unpayable", detail: "its 402 cannot be read" };
  const selection = selectPayableRequirement(paymentRequired, network, { schemes: ["exact", "upto"] });
  if (!selection.ok) return { verdict: "unpayable", detail: "offers no terms this deployment can pay (network, asset or scheme)" };
  if (selection.option.amount > listing.amount) {
    return { verdict: "price-above-listing", detail: `asks ${formatUsdc(selection.option.amount)} USDC, lists ${formatUsdc(listing.amount)} USDC` };
  }
  return { verdict: "buyable" };
}

/** The SDK's own reading: the v2 header, else the body (v1, or v2 in the body). */
function parsesWithSdk(headers: Headers, body: unknown): boolean {
  const header = headers.get("PAYMENT-REQUIRED");
  if (header) {
    try {
      return parsePaymentRequired(decodePaymentRequiredHeader(header)).success;
    } catch {
      return false;
    }
  }
  return parsePaymentRequired(body).success;
}
