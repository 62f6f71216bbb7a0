/**
 * Whether a listed service answers at all, asked the way its example call says, unpaid: a
 * listing whose server is down (discovery lists what was once paid, not what runs now) must not
 * be a newcomer's first request. A `402` (it asks for payment) or a success counts as answering;
 * anything else, an error or no answer in time, does not. The request is the evidence probe's
 * own (lib/evidence/probe-listing.ts); nothing is ever paid or signed here.
 */
import { askUnpaid, PROBE_TIMEOUT_MS, type ProbeFetch } from "../evidence/probe-listing";
import type { ServiceListing } from "../x402/discovery-listing";

export { PROBE_TIMEOUT_MS, type ProbeFetch };

export async function listingAnswers(fetch: ProbeFetch, listing: Pick<ServiceListing, "resource" | "input">, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const response = await askUnpaid(fetch, listing, timeoutMs);
  if (!response) return false;
  await response.body?.cancel().catch(() => undefined);
  return response.status === 402 || response.ok;
}
