import "server-only";
/**
 * Service discovery against the facilitator's Bazaar, cached briefly and filtered to what this
 * deployment can pay. The wire is the bazaar extension's, as `@x402/extensions`' `withBazaar`
 * client speaks it: `GET /discovery/resources` answers `items` with offset `pagination`
 * (`limit`, `offset`, `total`); `GET /discovery/search?query=` answers `resources`, optional
 * `partialResults` and an optional `pagination` with a continuation `cursor`. The requests
 * are our own rather than `withBazaar`'s because it calls the global fetch with no deadline
 * and no size limit: here they go through the guarded fetch, and every page is checked with
 * zod before anything of it is used. A facilitator without search (404, 405, 501) is served
 * from its list, matched by keyword here; so is a search that finds nothing payable (matched by
 * keyword, else the list's first listings, bounded).
 *
 * HTTP services and MCP tools are asked for separately (`type=http`, `type=mcp`), and kept
 * apart: `find` and `lookup` answer HTTP resources only, `findMcpTools` and `lookupMcpTool` the
 * tools, each known by its server's endpoint and its name (mcp-listing.ts).
 */
import { sanitizeResourceServiceMetadata } from "@x402/extensions/bazaar";
import { formatUsdc } from "../money";
import type { DiscoveredService } from "../stream";
import { BoundedCache } from "./bounded-cache";
import { DiscoveryItem, ListPage, SearchPage } from "./discovery-wire";
import type { InputContract } from "./input-contract";
import { readInputContract } from "./read-input-contract";
import { mcpToolKey, readMcpContract, type McpToolContract } from "./mcp-listing";
import { selectPayableRequirement, type PayableNetwork } from "./payment-requirements";
import { RouteIndex } from "./route-template";
import { sanitizeServiceText } from "./service-text";

/** Distinct queries cached at once, and listings remembered for `lookup`. */
const MAX_CACHED_QUERIES = 64;
const MAX_KNOWN_LISTINGS = 2_000;
/** Origins, and route templates per origin, remembered for `lookup` of a filled-in route. */
const MAX_ROUTE_ORIGINS = 200;
const MAX_ROUTES_PER_ORIGIN = 20;
const MAX_DESCRIPTION_CHARS = 300;


/** Pages read for one answer: enough for any catalogue a model can use, bounded for a hostile one. */
const MAX_LIST_PAGES = 5;
const LIST_PAGE_SIZE = 100;
const MAX_SEARCH_PAGES = 3;
const SEARCH_PAGE_SIZE = 20;
/** A search stops following its cursor once this many payable services are found. */
const ENOUGH_SEARCH_RESULTS = 20;
/** Listings an empty search answers from the list at most. */
const FALLBACK_LISTINGS = 20;
/** Answers meaning "this facilitator has no search": fall back to its list. */
const NO_SEARCH = new Set([404, 405, 501]);

export type DiscoveryClientOptions = {
  facilitatorUrl: string;
  network: PayableNetwork;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  cacheTtlMs?: number;
  now?: () => number;
};

export type ServiceListing = DiscoveredService & {
  /** Base units of the cheapest payable option. */
  amount: bigint;
  tags: string[];
  /** How to call it, when the listing declares it (see input-contract.ts). */
  input?: InputContract;
  /** Set when the listing is an MCP tool (`type: "mcp"`): `resource` is then its server's endpoint. */
  mcp?: McpToolContract;
};

/** Which kind of listing a query asks the Bazaar for (its `type` filter). */
type ListingType = "http" | "mcp";

export type DiscoveryClient = {
  /** Services matching a query (the Bazaar's ranking), or all services without one. */
  find(query?: string, signal?: AbortSignal): Promise<ServiceListing[]>;
  /**
   * A listed service by its resource URL (query string ignored), from the last listing; a
   * service listed by a route template (`/stocks/:symbol`) also by a URL that fills it in.
   */
  lookup(resource: string): ServiceListing | undefined;
  /** MCP tools (`type: "mcp"` listings) matching a query, or all of them without one. */
  findMcpTools(query?: string, signal?: AbortSignal): Promise<ServiceListing[]>;
  /** A listed MCP tool by its server's endpoint and its name, from the last listing of it. */
  lookupMcpTool(endpoint: string, toolName: string): ServiceListing | undefined;
  /** Whether some listed MCP tool is served at this endpoint (the endpoint came from discovery). */
  isMcpEndpoint(endpoint: string): boolean;
};

/** The MCP half of a discovery client that lists none: for stand-ins that serve HTTP listings only. */
export const WITHOUT_MCP_TOOLS: Pick<DiscoveryClient, "findMcpTools" | "lookupMcpTool" | "isMcpEndpoint"> = {
  findMcpTools: async () => [],
  lookupMcpTool: () => undefined,
  isMcpEndpoint: () => false,
};

export function createDiscoveryClient(options: DiscoveryClientOptions): DiscoveryClient {
  const ttl = options.cacheTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  // Keyed by the model's query: bounded, so no sequence of queries can grow them without end.
  const cache = new BoundedCache<string, ServiceListing[]>({ maxEntries: MAX_CACHED_QUERIES, ttlMs: ttl, now });
  const known = new BoundedCache<string, ServiceListing>({ maxEntries: MAX_KNOWN_LISTINGS });
  // MCP tools by (endpoint, tool name), and their endpoints: never found by `lookup`, which
  // answers for HTTP resources only (an endpoint is no URL to send an HTTP request to).
  const knownTools = new BoundedCache<string, ServiceListing>({ maxEntries: MAX_KNOWN_LISTINGS });
  const mcpEndpoints = new BoundedCache<string, true>({ maxEntries: MAX_KNOWN_LISTINGS });
  // The bazaar lists a dynamic route by its template, and a call fills the template in: such
  // listings are also kept by origin, to be found by the path a call actually takes.
  const routes = new RouteIndex<ServiceListing>({ maxOrigins: MAX_ROUTE_ORIGINS, maxRoutesPerOrigin: MAX_ROUTES_PER_ORIGIN });

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

  function toListing(raw: unknown): ServiceListing | undefined {
    const item = DiscoveryItem.safeParse(raw);
    if (!item.success) return undefined;
    const selection = payableOption(item.data.x402Version as 1 | 2, item.data.accepts);
    if (!selection.ok) return undefined;
    // Catalogue text is the service's: the bazaar's own metadata rules for the name and tags,
    // and the same kind of cleaning for the description, before it reaches the model or page.
    const metadata = sanitizeResourceServiceMetadata({ url: item.data.resource, serviceName: item.data.serviceName, tags: item.data.tags } as never);
    const listing: ServiceListing = {
      name: metadata.serviceName ?? sanitizeServiceText(new URL(item.data.resource).pathname, 64),
      resource: item.data.resource,
      description: item.data.description === undefined ? undefined : sanitizeServiceText(item.data.description, MAX_DESCRIPTION_CHARS),
      price: formatUsdc(selection.option.amount),
      amount: selection.option.amount,
      network: selection.option.network,
      x402Version: item.data.x402Version,
      tags: metadata.tags ?? [],
    };
    if (item.data.type?.toLowerCase() === "mcp") {
      // A tool whose declaration cannot be read (name, schema, transport) cannot be called.
      const mcp = readMcpContract(item.data);
      if (!mcp) return undefined;
      listing.mcp = mcp;
      if (metadata.serviceName === undefined) listing.name = mcp.toolName;
      knownTools.set(mcpToolKey(listing.resource, mcp.toolName), listing);
      mcpEndpoints.set(stripQuery(listing.resource), true);
      return listing;
    }
    const input = readInputContract(item.data);
    if (input) listing.input = input;
    known.set(stripQuery(listing.resource), listing);
    routes.remember(listing.resource, input?.routeTemplate, listing);
    return listing;
  }

  // Terms as the item's version reads them, else as the other's: the spec's list example (v2 §8.1)
  // says `x402Version: 1` with v2 terms (`amount`). Only the listed price depends on it.
  // A metered (`upto`) listing is payable too (by the agent wallet): its price is its ceiling.
  function payableOption(version: 1 | 2, accepts: Record<string, unknown>[]) {
    const schemes = { schemes: ["exact", "upto"] } as const;
    const selection = selectPayableRequirement({ x402Version: version, accepts }, options.network, schemes);
    return selection.ok ? selection : selectPayableRequirement({ x402Version: version === 1 ? 2 : 1, accepts }, options.network, schemes);
  }

  function collect(into: Map<string, ServiceListing>, raws: unknown[], type: ListingType): void {
    for (const raw of raws) {
      const listing = toListing(raw);
      // Only the kind asked for: a facilitator that ignores the filter does not mix them.
      if (!listing || (listing.mcp !== undefined) !== (type === "mcp")) continue;
      // A resource listed twice (on two pages, or twice on one) counts once; an MCP tool is its endpoint and name.
      const key = listing.mcp ? mcpToolKey(listing.resource, listing.mcp.toolName) : listing.resource;
      if (!into.has(key)) into.set(key, listing);
    }
  }

  async function listAll(type: ListingType, signal?: AbortSignal): Promise<ServiceListing[]> {
    const found = new Map<string, ServiceListing>();
    for (let page = 0, offset = 0; page < MAX_LIST_PAGES; page += 1) {
      const answer = await getJson(`discovery/resources?type=${type}&limit=${LIST_PAGE_SIZE}&offset=${offset}`, signal);
      if (answer.body === undefined) throw new Error(`discovery answered HTTP ${answer.status}`);
      const { items, pagination } = ListPage.parse(answer.body);
      collect(found, items, type);
      offset += items.length;
      // Without a total the page itself says whether more may follow: a short page is the last.
      const more = pagination ? offset < pagination.total : items.length >= LIST_PAGE_SIZE;
      if (items.length === 0 || !more) break;
    }
    return [...found.values()];
  }

  async function search(type: ListingType, query: string, signal?: AbortSignal): Promise<ServiceListing[]> {
    const found = new Map<string, ServiceListing>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_SEARCH_PAGES; page += 1) {
      const parameters = new URLSearchParams({ query, type, limit: String(SEARCH_PAGE_SIZE) });
      if (cursor) parameters.set("cursor", cursor);
      const answer = await getJson(`discovery/search?${parameters}`, signal);
      if (answer.body === undefined) {
        if (page === 0 && NO_SEARCH.has(answer.status)) return matchLocally(query, await cached(`${type}:list`, () => listAll(type, signal)));
        throw new Error(`discovery search answered HTTP ${answer.status}`);
      }
      const result = SearchPage.parse(answer.body);
      collect(found, result.resources, type);
      const next = result.pagination?.cursor ?? undefined;
      if (!next || next === cursor || result.resources.length === 0 || found.size >= ENOUGH_SEARCH_RESULTS) break;
      cursor = next;
    }
    if (found.size === 0) return fromList(type, query, signal);
    return [...found.values()];
  }

  /**
   * A search that found nothing payable is not the last word: a ranking can miss what a
   * listing names in other words. The list (itself bounded by MAX_LIST_PAGES) answers instead:
   * the listings matching the query's words, else its first FALLBACK_LISTINGS, so the model
   * judges for itself before saying nothing fits. A list that cannot be read leaves the empty
   * answer the search gave.
   */
  async function fromList(type: ListingType, query: string, signal?: AbortSignal): Promise<ServiceListing[]> {
    let listed: ServiceListing[];
    try {
      listed = await cached(`${type}:list`, () => listAll(type, signal));
    } catch {
      return [];
    }
    const matched = matchLocally(query, listed);
    // MCP tools are shown beside the services: only the ones the query names, never a filler list.
    if (type === "mcp") return matched.slice(0, FALLBACK_LISTINGS);
    return (matched.length > 0 ? matched : listed).slice(0, FALLBACK_LISTINGS);
  }

  async function cached(key: string, load: () => Promise<ServiceListing[]>): Promise<ServiceListing[]> {
    const hit = cache.get(key);
    if (hit) return hit;
    const listings = await load();
    cache.set(key, listings);
    return listings;
  }

  function findOf(type: ListingType, query: string | undefined, signal: AbortSignal | undefined): Promise<ServiceListing[]> {
    const trimmed = query?.trim().slice(0, 200);
    return trimmed ? cached(`${type}:search:${trimmed}`, () => search(type, trimmed, signal)) : cached(`${type}:list`, () => listAll(type, signal));
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

/**
 * Keyword match for a facilitator without search: listings naming more of the query's words
 * (in name, tags, description or URL) first; listings naming none are left out.
 */
export function matchLocally(query: string, listings: readonly ServiceListing[]): ServiceListing[] {
  const words = [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 2))];
  if (words.length === 0) return [...listings];
  return listings
    .map((listing, index) => {
      const text = [listing.name, listing.description ?? "", listing.resource, ...listing.tags].join(" ").toLowerCase();
      return { listing, index, score: words.filter((word) => text.includes(word)).length };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.listing);
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

export function stripQuery(resource: string): string {
  try {
    const url = new URL(resource);
    return `${url.origin}${url.pathname}`;
  } catch {
    return resource;
  }
}
