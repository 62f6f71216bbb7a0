import "server-only";
/**
 * Service discovery against the facilitator's Bazaar (read by bazaar-reader.ts), cached briefly
 * and narrowed to what this deployment can pay and the agent can call: listings it could never
 * call are left out, and counted, before anyone chooses among them (uncallable-listings.ts).
 * A facilitator without search (404, 405, 501) is served from its list, matched by keyword
 * here; so is a search that finds nothing callable (matched by keyword, else the list's first
 * listings, bounded). Equally relevant listings come cheapest first (listing-order.ts).
 *
 * HTTP services and MCP tools are asked for separately (`type=http`, `type=mcp`), and kept
 * apart: `find` and `lookup` answer HTTP resources only, `findMcpTools` and `lookupMcpTool` the
 * tools, each known by its server's endpoint and its name (mcp-listing.ts).
 */
import type { DroppedListings, DroppedReason } from "../stream";
import { createBazaarReader, type BazaarReaderOptions, type ListingType } from "./bazaar-reader";
import { BoundedCache } from "./bounded-cache";
import { listingKey, stripQuery, type ServiceListing } from "./discovery-listing";
import { cheapestFirst, matchLocally } from "./listing-order";
import { mcpToolKey } from "./mcp-listing";
import { RouteIndex } from "./route-template";
import { countDropped, type SortedListings } from "./uncallable-listings";

/** Distinct queries cached at once, and listings remembered for `lookup`. */
const MAX_CACHED_QUERIES = 64;
const MAX_KNOWN_LISTINGS = 2_000;
/** Origins, and route templates per origin, remembered for `lookup` of a filled-in route. */
const MAX_ROUTE_ORIGINS = 200;
const MAX_ROUTES_PER_ORIGIN = 20;
/** Listings an empty search answers from the list at most. */
const FALLBACK_LISTINGS = 20;

export type DiscoveryClientOptions = BazaarReaderOptions & {
  cacheTtlMs?: number;
  /** The clock the cache's time to live is measured on: the app's one clock. */
  now: () => number;
};

/** A listing discovery left out because it cannot be bought now, with why (lib/evidence). */
export type ListedApart = { listing: ServiceListing; reason: DroppedReason; detail?: string; checkedAt?: number };

/**
 * A discovery's answer: the listings, and how many it left out (per reason) because the agent
 * could never call them or cannot buy them now; those of the second kind also one by one.
 */
export type Found = { listings: ServiceListing[]; dropped: DroppedListings; apart?: ListedApart[] };

export const NOTHING_FOUND: Found = Object.freeze({ listings: [], dropped: {} }) as Found;

export type DiscoveryClient = {
  /** Services matching a query (the Bazaar's ranking), or all services without one. */
  find(query?: string, signal?: AbortSignal): Promise<Found>;
  /**
   * A listed service by its resource URL (query string ignored), from the last listing; a
   * service listed by a route template (`/stocks/:symbol`) also by a URL that fills it in.
   */
  lookup(resource: string): ServiceListing | undefined;
  /** MCP tools (`type: "mcp"` listings) matching a query, or all of them without one. */
  findMcpTools(query?: string, signal?: AbortSignal): Promise<Found>;
  /** A listed MCP tool by its server's endpoint and its name, from the last listing of it. */
  lookupMcpTool(endpoint: string, toolName: string): ServiceListing | undefined;
  /** Whether some listed MCP tool is served at this endpoint (the endpoint came from discovery). */
  isMcpEndpoint(endpoint: string): boolean;
};

/** The MCP half of a discovery client that lists none: for stand-ins that serve HTTP listings only. */
export const WITHOUT_MCP_TOOLS: Pick<DiscoveryClient, "findMcpTools" | "lookupMcpTool" | "isMcpEndpoint"> = {
  findMcpTools: async () => NOTHING_FOUND,
  lookupMcpTool: () => undefined,
  isMcpEndpoint: () => false,
};

export function createDiscoveryClient(options: DiscoveryClientOptions): DiscoveryClient {
  const reader = createBazaarReader(options);
  const ttl = options.cacheTtlMs ?? 30_000;
  const { now } = options;
  // Keyed by the model's query: bounded, so no sequence of queries can grow them without end.
  const cache = new BoundedCache<string, SortedListings>({ maxEntries: MAX_CACHED_QUERIES, ttlMs: ttl, now });
  const known = new BoundedCache<string, ServiceListing>({ maxEntries: MAX_KNOWN_LISTINGS });
  // MCP tools by (endpoint, tool name), and their endpoints: never found by `lookup`, which
  // answers for HTTP resources only (an endpoint is no URL to send an HTTP request to).
  const knownTools = new BoundedCache<string, ServiceListing>({ maxEntries: MAX_KNOWN_LISTINGS });
  const mcpEndpoints = new BoundedCache<string, true>({ maxEntries: MAX_KNOWN_LISTINGS });
  // The bazaar lists a dynamic route by its template, and a call fills the template in: such
  // listings are also kept by origin, to be found by the path a call actually takes.
  const routes = new RouteIndex<ServiceListing>({ maxOrigins: MAX_ROUTE_ORIGINS, maxRoutesPerOrigin: MAX_ROUTES_PER_ORIGIN });

  /** Only what was kept is ever found by a lookup: a dropped listing is no listing. */
  function remember(listings: readonly ServiceListing[]): void {
    for (const listing of listings) {
      if (listing.mcp) {
        knownTools.set(mcpToolKey(listing.resource, listing.mcp.toolName), listing);
        mcpEndpoints.set(stripQuery(listing.resource), true);
      } else {
        known.set(stripQuery(listing.resource), listing);
        routes.remember(listing.resource, listing.input?.routeTemplate, listing);
      }
    }
  }

  async function cached(key: string, load: () => Promise<SortedListings>): Promise<SortedListings> {
    const hit = cache.get(key);
    if (hit) return hit;
    const sorted = await load();
    remember(sorted.kept);
    cache.set(key, sorted);
    return sorted;
  }

  /** The whole list, all equally relevant: cheapest first. */
  function listAll(type: ListingType, signal?: AbortSignal): Promise<SortedListings> {
    return cached(`${type}:list`, async () => {
      const listed = await reader.list(type, signal);
      return { kept: cheapestFirst(listed.kept), dropped: listed.dropped };
    });
  }

  async function search(type: ListingType, query: string, signal?: AbortSignal): Promise<SortedListings> {
    const found = await reader.search(type, query, signal);
    if (found === "no-search") return matched(query, await listAll(type, signal));
    return found.kept.length > 0 ? found : fromList(type, query, found, signal);
  }

  /**
   * A search that found nothing callable is not the last word: a ranking can miss what a
   * listing names in other words. The list (itself bounded) answers instead: the listings
   * matching the query's words, else its first FALLBACK_LISTINGS, so the model judges for
   * itself before saying nothing fits. A list that cannot be read leaves the search's answer.
   */
  async function fromList(type: ListingType, query: string, searched: SortedListings, signal?: AbortSignal): Promise<SortedListings> {
    let listed: SortedListings;
    try {
      listed = await listAll(type, signal);
    } catch {
      return searched;
    }
    const match = matched(query, listed);
    // MCP tools are shown beside the services: only the ones the query names, never a filler list.
    const answer = type === "mcp" || match.kept.length > 0 ? match : { kept: listed.kept, dropped: listed.dropped };
    return { kept: answer.kept.slice(0, FALLBACK_LISTINGS), dropped: sameOnce([...searched.dropped, ...answer.dropped]) };
  }

  function findOf(type: ListingType, query: string | undefined, signal: AbortSignal | undefined): Promise<Found> {
    const trimmed = query?.trim().slice(0, 200);
    const sorted = trimmed ? cached(`${type}:search:${trimmed}`, () => search(type, trimmed, signal)) : listAll(type, signal);
    return sorted.then((answer) => ({ listings: answer.kept, dropped: countDropped(answer.dropped) }));
  }

  return {
    find(query, signal) {
      return findOf("http", query, signal);
    },
    lookup(resource) {
      return known.get(stripQuery(resource)) ?? routes.find(resource);
    },
    findMcpTools(query, signal) {
      return findOf("mcp", query, signal);
    },
    lookupMcpTool(endpoint, toolName) {
      return knownTools.get(mcpToolKey(endpoint, toolName));
    },
    isMcpEndpoint(endpoint) {
      return mcpEndpoints.get(stripQuery(endpoint)) === true;
    },
  };
}

/** The listings of a list the query's words name, kept and dropped alike (those counted are those it would have answered). */
function matched(query: string, listed: SortedListings): SortedListings {
  const dropped = new Map(listed.dropped.map((entry) => [entry.listing, entry.reason]));
  return {
    kept: matchLocally(query, listed.kept),
    dropped: matchLocally(query, [...dropped.keys()]).map((listing) => ({ listing, reason: dropped.get(listing)! })),
  };
}

/** Dropped listings counted once, however many answers named them. */
function sameOnce(dropped: SortedListings["dropped"]): SortedListings["dropped"] {
  const byKey = new Map(dropped.map((entry) => [listingKey(entry.listing), entry]));
  return [...byKey.values()];
}
