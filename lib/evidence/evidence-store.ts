/**
 * Evidence about each listing, shared by every instance: what an unpaid probe found (kept until
 * it expires) and what our own money did there (read from the payment journal). Discovery keeps
 * only what can be bought and ranks by it (listing-evidence.ts); the database implementation is
 * what instances share, the memory one serves tests and the memory store.
 */

/** What an unpaid probe found: buyable, or why not. */
export type ProbeVerdict = "buyable" | "unreachable" | "unpayable" | "price-above-listing" | "failing";

export type ProbeFinding = {
  verdict: ProbeVerdict;
  /** A short, safe explanation (our words, not the service's). */
  detail?: string;
  /** How long the service took to answer the probe, milliseconds. */
  latencyMs: number;
  /**
   * A failure that may pass on its own (no answer in time, a refused connection, a 5xx or 429):
   * one such observation says little about a live service under load, so it is asked again
   * before it counts, and counts for a short while only (listing-prober.ts).
   */
  transient?: boolean;
};

/** A finding as stored: when it was made, on the shared clock (epoch ms). */
export type ProbeEvidence = ProbeFinding & { checkedAt: number };

/** What our payments to one listing (or one payee) came to, over the recent window. */
export type PaymentOutcomes = {
  delivered: number;
  /** Settled (money moved) and nothing delivered: the worst outcome a listing can have. */
  failedAfterPayment: number;
  /** Refused before any money moved (the service or its facilitator said no). */
  refused: number;
  /** Metered payments that settled more than the service's own metering says. */
  overSettled: number;
  /** Mean time from the payment's start to its delivery, milliseconds; absent with no delivery. */
  latencyMs?: number;
};

export type OutcomesQuery = { resources: readonly string[]; payees: readonly string[] };

export type OutcomesAnswer = {
  /** By listing resource (query string left out). */
  byResource: Map<string, PaymentOutcomes>;
  /** By payee address, lower case. */
  byPayee: Map<string, PaymentOutcomes>;
};

/** How far back our own payments count as evidence. */
export const OUTCOMES_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** A payment settled this long ago and still not delivered failed after payment. */
export const UNDELIVERED_AFTER_MS = 2 * 60 * 1000;

export interface EvidenceStore {
  /** The unexpired probe findings of these listings (absent: none, or expired). */
  probes(keys: readonly string[]): Promise<Map<string, ProbeEvidence>>;
  /**
   * Claims the right to probe a listing for `intervalMs`: true for one caller across every
   * instance sharing the store until the interval passes, false for the others.
   */
  claimProbe(key: string, intervalMs: number, holder?: string): Promise<boolean>;
  /** Stores a probe's finding, valid for `ttlMs` from now (the store's clock). */
  recordProbe(key: string, finding: ProbeFinding, ttlMs: number): Promise<void>;
  /** Our payments' outcomes per listing and per payee, from the journal. */
  outcomes(query: OutcomesQuery): Promise<OutcomesAnswer>;
}

export const NO_OUTCOMES: PaymentOutcomes = Object.freeze({ delivered: 0, failedAfterPayment: 0, refused: 0, overSettled: 0 });

/** The listing part of a resource URL: without its query string and fragment. */
export function listingResource(resource: string): string {
  return resource.split(/[?#]/, 1)[0] ?? resource;
}
