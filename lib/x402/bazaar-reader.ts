/**
 * Reading a facilitator's Bazaar, page by page, as the bazaar extension's `withBazaar` client
 * speaks it: `GET /discovery/resources` answers `items` with offset `pagination` (`limit`,
 * `offset`, `total`); `GET /discovery/search?query=` answers `resources`, optional
 * `partialResults` and an optional `pagination` with a continuation `cursor`. The requests are
 * our own rather than `withBazaar`'s because it calls the global fetch with no deadline and no
 * size limit: here they go through the fetch given (the guarded fetch), and every page is
 * checked with zod before anything of it is used. Pages are bounded for a hostile catalogue.
 *
 * Each page's listings are read (discovery-listing.ts), counted once, and sorted into those the
 * agent can call and those it never could (uncallable-listings.ts) as they arrive, so a
 * catalogue full of the latter cannot end a search early.
 */
import { ListPage, SearchPage } from "./discovery-wire";
import { listingKey, readListing, type ServiceListing } from "./discovery-listing";
import type { PayableNetwork } from "./payment-requirements";
import { sortCallable, type ListingJudge, type SortedListings } from "./uncallable-listings";

/** Pages read for one answer: enough for any catalogue a model can use, bounded for a hostile one. */
const MAX_LIST_PAGES = 5;
const LIST_PAGE_SIZE = 100;
const MAX_SEARCH_PAGES = 3;
const SEARCH_PAGE_SIZE = 20;
/** A search stops following its cursor once this many callable services are found. */
const ENOUGH_SEARCH_RESULTS = 20;
/** Answers meaning "this facilitator has no search". */
const NO_SEARCH = new Set([404, 405, 501]);

/** Which kind of listing a query asks the Bazaar for (its `type` filter). */
export type ListingType = "http" | "mcp";

export type BazaarReaderOptions = {
  facilitatorUrl: string;
  network: PayableNetwork;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /** Leaves out what the agent could never call; without one, every payable listing is kept. */
  judge?: ListingJudge;
};

export type BazaarReader = {
  /** The whole list (bounded), in the Bazaar's order. */
  list(type: ListingType, signal?: AbortSignal): Promise<SortedListings>;
  /** The Bazaar's search, in its ranking; "no-search" when the facilitator has none. */
  search(type: ListingType, query: string, signal?: AbortSignal): Promise<SortedListings | "no-search">;
};

export function createBazaarReader(options: BazaarReaderOptions): BazaarReader {
  async function getJson(path: string, signal?: AbortSignal): Promise<{ status: number; body?: unknown }> {
    const response = await options.fetch(new URL(path, withSlash(options.facilitatorUrl)).toString(), {
      headers: { accept: "application/json" },
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { status: response.status };
    }
    return { status: response.status, body: await response.json() };
  }

  /** Adds a page's new listings of the kind asked for to `into`; a listing seen before counts once. */
  async function collect(into: SortedListings, seen: Set<string>, raws: unknown[], type: ListingType): Promise<void> {
    const fresh: ServiceListing[] = [];
    for (const raw of raws) {
      const listing = readListing(raw, options.network);
      // Only the kind asked for: a facilitator that ignores the filter does not mix them.
      if (!listing || (listing.mcp !== undefined) !== (type === "mcp")) continue;
      const key = listingKey(listing);
      if (seen.has(key)) continue;
      seen.add(key);
      fresh.push(listing);
    }
    const sorted = await sortCallable(fresh, options.judge);
    into.kept.push(...sorted.kept);
    into.dropped.push(...sorted.dropped);
  }

  return {
    async list(type, signal) {
      const found: SortedListings = { kept: [], dropped: [] };
      const seen = new Set<string>();
      for (let page = 0, offset = 0; page < MAX_LIST_PAGES; page += 1) {
        const answer = await getJson(`discovery/resources?type=${type}&limit=${LIST_PAGE_SIZE}&offset=${offset}`, signal);
        if (answer.body === undefined) throw new Error(`discovery answered HTTP ${answer.status}`);
        const { items, pagination } = ListPage.parse(answer.body);
        await collect(found, seen, items, type);
        offset += items.length;
        // Without a total the page itself says whether more may follow: a short page is the last.
        const more = pagination ? offset < pagination.total : items.length >= LIST_PAGE_SIZE;
        if (items.length === 0 || !more) break;
      }
      return found;
    },

    async search(type, query, signal) {
      const found: SortedListings = { kept: [], dropped: [] };
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_SEARCH_PAGES; page += 1) {
        const parameters = new URLSearchParams({ query, type, limit: String(SEARCH_PAGE_SIZE) });
        if (cursor) parameters.set("cursor", cursor);
        const answer = await getJson(`discovery/search?${parameters}`, signal);
        if (answer.body === undefined) {
          if (page === 0 && NO_SEARCH.has(answer.status)) return "no-search";
          throw new Error(`discovery search answered HTTP ${answer.status}`);
        }
        const result = SearchPage.parse(answer.body);
        await collect(found, seen, result.resources, type);
        const next = result.pagination?.cursor ?? undefined;
        if (!next || next === cursor || result.resources.length === 0 || found.kept.length >= ENOUGH_SEARCH_RESULTS) break;
        cursor = next;
      }
      return found;
    },
  };
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
