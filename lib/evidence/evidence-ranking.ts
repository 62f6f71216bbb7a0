/**
 * The order discovery answers in once evidence is known: relevance first (the discovery's own
 * order between listings naming different numbers of the query's words), then evidence (our
 * payments' delivered rate, a failure after payment weighing heavily, then latency), then price,
 * then the discovery's order. A listing that took our money and delivered nothing thus falls
 * below an equally relevant one that delivered, at once and on every instance (the journal is
 * shared), but never above a more relevant one.
 */
import type { ServiceEvidence } from "../stream";
import type { ServiceListing } from "../x402/discovery-listing";
import { comparePrice, queryWords, wordsNamed } from "../x402/listing-order";
import type { PaymentOutcomes } from "./evidence-store";

/** A failure after payment counts as this many deliveries' worth against a listing. */
export const PAID_FAILURE_WEIGHT = 5;
/** An over-settled metered payment counts as this many. */
const OVER_SETTLED_WEIGHT = 2;
/** Latencies within the same step rank alike: a few milliseconds say nothing. */
const LATENCY_STEP_MS = 1_000;

/**
 * From 0 (took money, delivered nothing) to 1: deliveries against failures after payment, with
 * one delivery's worth of benefit of the doubt, so a listing without history ranks as one that
 * always delivered, and the first failure after payment sinks it below both.
 */
export function deliveredScore(outcomes: Pick<PaymentOutcomes, "delivered" | "failedAfterPayment" | "overSettled"> | undefined): number {
  if (!outcomes) return 1;
  const good = outcomes.delivered + 1;
  return good / (good + PAID_FAILURE_WEIGHT * outcomes.failedAfterPayment + OVER_SETTLED_WEIGHT * outcomes.overSettled);
}

/** The listings in answer order (see the module's comment); `index` is the discovery's order. */
export function rankByEvidence(query: string | undefined, listings: readonly ServiceListing[]): ServiceListing[] {
  const words = queryWords(query ?? "");
  const entries = listings.map((listing, index) => ({ listing, index, relevance: wordsNamed(words, listing) }));
  // Runs of equal relevance, in the discovery's order: evidence reorders within a run only.
  const ranked: ServiceListing[] = [];
  for (let start = 0; start < entries.length;) {
    let end = start + 1;
    while (end < entries.length && entries[end]!.relevance === entries[start]!.relevance) end += 1;
    ranked.push(
      ...entries
        .slice(start, end)
        .sort(compareEvidence)
        .map((entry) => entry.listing),
    );
    start = end;
  }
  return ranked;
}

function compareEvidence(left: { listing: ServiceListing; index: number }, right: { listing: ServiceListing; index: number }): number {
  const score = (listing: ServiceListing) => Math.round(deliveredScore(listing.evidence) * 100);
  const latency = (listing: ServiceListing) => Math.floor(latencyOf(listing.evidence) / LATENCY_STEP_MS);
  return (
    score(right.listing) - score(left.listing) ||
    latency(left.listing) - latency(right.listing) ||
    comparePrice(left.listing, right.listing) ||
    left.index - right.index
  );
}

/** Our payments' time to delivery, else the probe's answer time, else nothing known (0). */
function latencyOf(evidence: ServiceEvidence | undefined): number {
  return evidence?.latencyMs ?? evidence?.probeLatencyMs ?? 0;
}
