/**
 * Whether a listed service answers at all, asked the way its example call says, unpaid: a
 * listing whose server is down (discovery lists what was once paid, not what runs now) must not
 * be a newcomer's first request. A `402` (it asks for payment) or a success counts as answering;
 * anything else, an error or no answer in time, does not. Nothing is ever paid or signed here.
 */
import { timeoutSignal } from "../timeout";
import { exampleCall } from "../x402/call-usage";
import type { ServiceListing } from "../x402/discovery-listing";

export type ProbeFetch = (url: string, init: RequestInit) => Promise<Response>;

/** The longest a probe waits: a service this slow would not make a good first impression either. */
export const PROBE_TIMEOUT_MS = 3_000;

export async function listingAnswers(fetch: ProbeFetch, listing: Pick<ServiceListing, "resource" | "input">, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const call = listing.input ? exampleCall(listing.resource, listing.input) : undefined;
  const method: string = call?.method ?? "GET";
  const body = call?.body === undefined ? undefined : JSON.stringify(call.body);
  const timeout = timeoutSignal(timeoutMs);
  try {
    const response = await fetch(call?.url ?? listing.resource, {
      method,
      body,
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      redirect: "manual",
      signal: timeout.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status === 402 || response.ok;
  } catch {
    return false;
  } finally {
    timeout.clear();
  }
}
