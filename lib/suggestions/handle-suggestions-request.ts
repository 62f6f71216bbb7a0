import "server-only";
/**
 * `GET /api/suggestions`: the empty chat's example requests, from the configured network's
 * discovery list. Always 200: no suggestions (an empty list) when discovery or the deployment's
 * configuration is not available, so the page simply shows none.
 */
import type { AppDependencies } from "../doors/app-dependencies";
import type { Suggestion } from "./build-suggestions";
import { listingAnswers } from "./probe-listing";
import { createSuggestionsSource, type SuggestionsSource } from "./suggestions-source";

/** Browsers and caches may reuse a list for as long as the server itself does. */
const CACHE_SECONDS = 60;

export async function handleSuggestionsRequest(getSource: () => SuggestionsSource): Promise<Response> {
  let suggestions: Suggestion[];
  try {
    suggestions = await getSource().get();
  } catch {
    suggestions = [];
  }
  const cacheControl = suggestions.length > 0 ? `public, max-age=${CACHE_SECONDS}` : "no-store";
  return Response.json({ suggestions }, { headers: { "Cache-Control": cacheControl } });
}

let source: SuggestionsSource | undefined;

/** One source per process, over the agent's own discovery client (and its cache). */
export function getSuggestionsSource(getDependencies: () => AppDependencies): SuggestionsSource {
  if (source) return source;
  const deps = getDependencies();
  source = createSuggestionsSource({
    discovery: deps.discovery,
    maxAmount: deps.settings.limitSettings.defaults.perPayment,
    ttlMs: CACHE_SECONDS * 1000,
    now: deps.now,
    // Through the agent's own guarded fetch: a probe reaches only what the agent could call.
    answers: (listing) => listingAnswers(deps.fetch, listing),
  });
  return source;
}
