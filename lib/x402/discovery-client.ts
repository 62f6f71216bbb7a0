import "server-only";
/**
 * Service discovery against the facilitator's Bazaar (`/discovery/resources` and
 * `/discovery/search`), cached briefly and filtered to what this deployment can pay.
 */
import { sanitizeResourceServiceMetadata } from "@x402/extensions/bazaar";
import { z } from "zod";
import { formatUsdc } from "../money";
import type { DiscoveredService } from "../stream";
import { BoundedCache } from "./bounded-cache";
import { selectPayableRequirement, type PayableNetwork } from "./payment-requirements";
import { sanitizeServiceText } from "./service-text";

/** Distinct queries cached at once, and listings remembered for `lookup`. */
const MAX_CACHED_QUERIES = 64;
const MAX_KNOWN_LISTINGS = 2_000;
const MAX_DESCRIPTION_CHARS = 300;

const DiscoveryItem = z.looseObject({
  resource: z.string().max(2048),
  type: z.string().optional(),
  x402Version: z.number().int().min(1).max(2),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  description: z.string().max(2000).optional().catch(undefined),
  serviceName: z.string().max(200).optional().catch(undefined),
  tags: z.array(z.string().max(64)).max(32).optional().catch(undefined),
  metadata: z.record(z.string(), z.unknown()).optional().catch(undefined),
});

const DiscoveryPage = z.looseObject({
  items: z.array(z.unknown()).max(1000),
});

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
};

export type DiscoveryClient = {
  /** Services matching a query (the Bazaar's ranking), or all services without one. */
  find(query?: string, signal?: AbortSignal): Promise<ServiceListing[]>;
  /** A listed service by its resource URL (query string ignored), from the last listing. */
  lookup(resource: string): ServiceListing | undefined;
};

export function createDiscoveryClient(options: DiscoveryClientOptions): DiscoveryClient {
  const ttl = options.cacheTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  // Keyed by the model's query: bounded, so no sequence of queries can grow them without end.
  const cache = new BoundedCache<string, ServiceListing[]>({ maxEntries: MAX_CACHED_QUERIES, ttlMs: ttl, now });
  const known = new BoundedCache<string, ServiceListing>({ maxEntries: MAX_KNOWN_LISTINGS });

  async function load(path: string, signal?: AbortSignal): Promise<ServiceListing[]> {
    const hit = cache.get(path);
    if (hit) return hit;
    const response = await options.fetch(new URL(path, withSlash(options.facilitatorUrl)).toString(), {
      headers: { accept: "application/json" },
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`discovery answered HTTP ${response.status}`);
    }
    const page = DiscoveryPage.parse(await response.json());
    const listings: ServiceListing[] = [];
    for (const raw of page.items) {
      const item = DiscoveryItem.safeParse(raw);
      if (!item.success) continue;
      const selection = selectPayableRequirement({ x402Version: item.data.x402Version as 1 | 2, accepts: item.data.accepts }, options.network);
      if (!selection.ok) continue;
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
      listings.push(listing);
      known.set(stripQuery(listing.resource), listing);
    }
    cache.set(path, listings);
    return listings;
  }

  return {
    find(query, signal) {
      const trimmed = query?.trim();
      const path = trimmed
        ? `discovery/search?query=${encodeURIComponent(trimmed.slice(0, 200))}`
        : "discovery/resources?type=http&limit=100&offset=0";
      return load(path, signal);
    },
    lookup(resource) {
      return known.get(stripQuery(resource));
    },
  };
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
