/**
 * The empty chat's suggestions, from the discovery list, cached briefly: every page load asks
 * for them, and however many do, discovery is read at most once per TTL (concurrent requests
 * share one read). A failed or slow read gives no suggestions, itself cached for a shorter
 * while, so a facilitator that is down is not asked again by every page.
 */
import { timeoutSignal } from "../timeout";
import type { DiscoveryClient } from "../x402/discovery-client";
import { MAX_SUGGESTIONS, suggestionCandidates, type Suggestion } from "./build-suggestions";
import type { ServiceListing } from "../x402/discovery-listing";

export type SuggestionsSource = { get(): Promise<Suggestion[]> };

export type SuggestionsSourceOptions = {
  discovery: Pick<DiscoveryClient, "find">;
  /** The default per-payment limit (base units): dearer listings are not suggested. */
  maxAmount?: bigint;
  ttlMs?: number;
  failureTtlMs?: number;
  /** The longest the page waits for discovery; suggestions are not worth a slow first paint. */
  timeoutMs?: number;
  now: () => number;
  log?: (entry: Record<string, unknown>) => void;
  /**
   * Asks a candidate's service, unpaid, whether it answers (probe-listing.ts); without one,
   * every candidate is suggested. Candidates are asked at once, a few more than are shown.
   */
  answers?: (listing: ServiceListing) => Promise<boolean>;
};

/** Candidates asked per suggestion shown: room for a down server or two without a second round. */
const CANDIDATES_PER_SUGGESTION = 2;

export function createSuggestionsSource(options: SuggestionsSourceOptions): SuggestionsSource {
  const ttl = options.ttlMs ?? 60_000;
  const failureTtl = options.failureTtlMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const { now } = options;
  let cached: { value: Suggestion[]; until: number } | undefined;
  let loading: Promise<Suggestion[]> | undefined;

  async function load(): Promise<Suggestion[]> {
    const timeout = timeoutSignal(timeoutMs);
    try {
      const { listings } = await options.discovery.find(undefined, timeout.signal);
      const candidates = suggestionCandidates(listings, {
        maxAmount: options.maxAmount,
        max: options.answers ? MAX_SUGGESTIONS * CANDIDATES_PER_SUGGESTION : MAX_SUGGESTIONS,
      });
      const answering = options.answers
        ? await Promise.all(candidates.map(({ listing }) => options.answers!(listing).catch(() => false)))
        : candidates.map(() => true);
      const value = candidates
        .filter((_, index) => answering[index])
        .slice(0, MAX_SUGGESTIONS)
        .map(({ suggestion }) => suggestion);
      cached = { value, until: now() + ttl };
      return value;
    } catch (error) {
      (options.log ?? ((line) => console.warn(JSON.stringify(line))))({ level: "warn", event: "suggestions-unavailable", error: String(error) });
      cached = { value: [], until: now() + failureTtl };
      return [];
    } finally {
      timeout.clear();
    }
  }

  return {
    get() {
      if (cached && now() < cached.until) return Promise.resolve(cached.value);
      loading ??= load().finally(() => {
        loading = undefined;
      });
      return loading;
    },
  };
}
