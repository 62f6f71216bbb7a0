/**
 * Discovery that lists only what can be bought, ranked by evidence: a wrapper around a discovery
 * client. Each HTTP listing's last unpaid probe (shared, in the store) either finds it buyable,
 * or leaves it out with its reason (counted in `dropped`, and listed one by one in `apart`);
 * listings without a finding are probed in the background. A discovery waits, at most
 * `waitBudgetMs`, for the probes of the few listings it is about to answer first (the ones a
 * model chooses from), so a dead or unpayable listing is never the first choice even when
 * nobody has checked it yet. Our own payments' outcomes (the journal) then rank what is left
 * (evidence-ranking.ts). MCP tools pass through unchanged.
 */
import type { ServiceEvidence } from "../stream";
import type { DiscoveryClient, Found, ListedApart } from "../x402/discovery-client";
import type { ServiceListing } from "../x402/discovery-listing";
import { addDropped, countDropped } from "../x402/uncallable-listings";
import { rankByEvidence } from "./evidence-ranking";
import { listingResource, NO_OUTCOMES, type EvidenceStore, type OutcomesAnswer, type ProbeEvidence } from "./evidence-store";
import type { ListingProber } from "./listing-prober";

export type EvidenceDiscoveryOptions = {
  store: EvidenceStore;
  /** Absent: no probes (none sent, none waited for); findings other instances stored still count. */
  prober?: ListingProber;
  /** Listings answered first whose probes a discovery waits for. */
  candidates?: number;
  /** The most a discovery waits for those probes, milliseconds. */
  waitBudgetMs?: number;
};

export const EVIDENCE_DEFAULTS = { candidates: 3, waitBudgetMs: 1_500 } as const;
/** Between two reads of findings another instance's probe may have stored. */
const POLL_MS = 50;

/**
 * @example
 * const discovery = withEvidence(createDiscoveryClient(options), { store: store.evidence, prober });
 * const { listings, dropped, apart } = await discovery.find("weather");
 */
export function withEvidence(discovery: DiscoveryClient, options: EvidenceDiscoveryOptions): DiscoveryClient {
  const candidates = options.candidates ?? EVIDENCE_DEFAULTS.candidates;
  const waitBudgetMs = options.waitBudgetMs ?? EVIDENCE_DEFAULTS.waitBudgetMs;

  async function findings(listings: readonly ServiceListing[]): Promise<Map<string, ProbeEvidence>> {
    let found = await options.store.probes(listings.map((listing) => listing.resource));
    // The budget is for probes: it starts once the store has answered (a cold database opens first).
    const deadline = Date.now() + waitBudgetMs;
    // Everything without a finding is probed in the background, in answer order.
    const prober = options.prober;
    if (!prober) return found;
    void prober.refresh(listings.filter((listing) => !found.has(listing.resource)));
    for (;;) {
      const unknown = firstCandidates(listings, found, candidates).filter((listing) => !found.has(listing.resource));
      const remaining = deadline - Date.now();
      if (unknown.length === 0 || remaining <= 0) return found;
      // This process's probes of them, or another instance's (claimed there): read again after each.
      await Promise.race([Promise.all([prober.refresh(unknown, remaining), sleep(POLL_MS)]), sleep(remaining)]);
      found = await options.store.probes(listings.map((listing) => listing.resource));
    }
  }

  async function judge(query: string | undefined, found: Found): Promise<Found> {
    const http = found.listings.filter((listing) => !listing.mcp);
    if (http.length === 0) return found;
    const [probes, outcomes] = await Promise.all([
      findings(http),
      options.store.outcomes({
        resources: http.map((listing) => listingResource(listing.resource)),
        payees: http.flatMap((listing) => (listing.payTo ? [listing.payTo] : [])),
      }),
    ]);
    const kept: ServiceListing[] = [];
    const apart: ListedApart[] = [];
    for (const listing of found.listings) {
      const probe = probes.get(listing.resource);
      if (probe && probe.verdict !== "buyable")
        apart.push({ listing, reason: probe.verdict, checkedAt: probe.checkedAt, ...(probe.detail ? { detail: probe.detail } : {}) });
      else kept.push(listing.mcp ? listing : { ...listing, evidence: evidenceOf(listing, probe, outcomes) });
    }
    return {
      listings: rankByEvidence(query, kept),
      dropped: addDropped(found.dropped, countDropped(apart)),
      apart: [...(found.apart ?? []), ...apart],
    };
  }

  return {
    ...discovery,
    async find(query, signal) {
      const found = await discovery.find(query, signal);
      try {
        return await judge(query, found);
      } catch {
        // Evidence is an improvement, not a dependency: without the store, discovery answers as before.
        return found;
      }
    },
  };
}

/** The first `count` listings not known to be unbuyable: what the answer would start with. */
function firstCandidates(listings: readonly ServiceListing[], found: Map<string, ProbeEvidence>, count: number): ServiceListing[] {
  const chosen: ServiceListing[] = [];
  for (const listing of listings) {
    if (chosen.length === count) break;
    const probe = found.get(listing.resource);
    if (!probe || probe.verdict === "buyable") chosen.push(listing);
  }
  return chosen;
}

/** The listing's outcomes, else its payee's (a new listing of a payee who took money and delivered nothing is no better). */
function evidenceOf(listing: ServiceListing, probe: ProbeEvidence | undefined, outcomes: OutcomesAnswer): ServiceEvidence {
  const own = outcomes.byResource.get(listingResource(listing.resource));
  const payee = listing.payTo ? outcomes.byPayee.get(listing.payTo.toLowerCase()) : undefined;
  const known = own ?? payee ?? NO_OUTCOMES;
  return {
    ...(probe ? { checkedAt: probe.checkedAt, probeLatencyMs: probe.latencyMs } : {}),
    delivered: known.delivered,
    failedAfterPayment: known.failedAfterPayment,
    refused: known.refused,
    overSettled: known.overSettled,
    ...(known.latencyMs === undefined ? {} : { latencyMs: known.latencyMs }),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
