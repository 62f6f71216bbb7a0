/**
 * An HTTP call to a service, once: the unpaid ask and the paid request share its headers, and a
 * call with a proof (a payment or a sign-in) follows no redirect. Failures are named for people.
 */
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { DEFAULT_CONTENT_TYPE, type RequestContentType } from "../../x402/request-body";
import type { PurchaseDependencies } from "./purchase-types";

/**
 * Sends a call once with one proof header (a payment or a sign-in). The proof is for this URL
 * only: the request follows no redirect, which is an answer, not a place to send the proof.
 */
export function sendWithProof(
  fetch: PurchaseDependencies["fetch"],
  call: { url: string; method: string; body?: string; contentType?: RequestContentType },
  proof: { header: string; value: string },
  signal: AbortSignal | undefined,
): Promise<Response> {
  return fetch(call.url, {
    method: call.method,
    body: call.body,
    headers: { ...requestHeaders(call.body, call.contentType), [proof.header]: proof.value },
    redirect: "manual",
    signal,
  });
}

/** The headers of a call to a service: the body's content type is the one its quote covers. */
export function requestHeaders(body: string | undefined, contentType: RequestContentType | undefined): Record<string, string> {
  return body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": contentType ?? DEFAULT_CONTENT_TYPE };
}

/** Why an outbound request failed, in a few words for people (never a URL or an address). */
export function describeFetchFailure(error: unknown): string {
  const guarded = GuardedFetchError.find(error);
  switch (guarded?.code) {
    case "timeout":
      return "timed out";
    case "connect_failed":
      return "connection refused";
    case "connection_lost":
      return "the connection failed";
    case "blocked_address":
    case "blocked_scheme":
      return guarded.requestMayHaveArrived ? "it redirected to a refused address" : "address not allowed";
    case "infrastructure":
      return guarded.requestMayHaveArrived
        ? "it redirected to the payment network's own server, which is not a service"
        : "this is the payment network's own server, not a service";
    case undefined:
      // Our own time limit on the paid request aborts it with a TimeoutError.
      return error instanceof Error && error.name === "TimeoutError" ? "timed out" : "the request was stopped";
    default:
      return "network error";
  }
}
