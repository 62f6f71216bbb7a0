import { z } from "zod";
import { rankBySearch, type SearchableFields } from "./search-ranking";

/**
 * One resource in the Bazaar discovery catalog, in the shape @x402/extensions' `withBazaar`
 * client reads (`DiscoveryResource`). `accepts` holds exactly the payment requirements the
 * service itself answers with in its 402, for the service's own protocol version.
 */
export type DiscoveryItem = {
  resource: string;
  type: "http";
  x402Version: 1 | 2;
  accepts: Record<string, unknown>[];
  lastUpdated: string;
  description: string;
  mimeType: string;
  serviceName: string;
  tags: string[];
  /** Bazaar extension info: the HTTP method, query parameters and an example output. */
  extensions: Record<string, unknown>;
  /** Devnet additions: the service's stable name, price and availability. */
  metadata: { name: string; path: string; price: string; amount: string; offline: boolean };
};

const optionalText = z.string().trim().min(1).max(200).optional();
const Filters = {
  type: optionalText,
  payTo: optionalText,
  scheme: optionalText,
  network: optionalText,
  extensions: optionalText,
};

export const ListQuery = z.object({
  ...Filters,
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

export const SearchQuery = z.object({
  ...Filters,
  query: z.string().trim().min(1, "query is required").max(500),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** Accepted for compatibility; every match fits in one page here. */
  cursor: z.string().max(200).optional(),
});

type Filter = Pick<z.infer<typeof ListQuery>, keyof typeof Filters>;

function matchesFilters(item: DiscoveryItem, filter: Filter): boolean {
  if (filter.type && item.type !== filter.type) return false;
  const accepts = (key: string, wanted: string | undefined) =>
    !wanted || item.accepts.some((accept) => String(accept[key] ?? "").toLowerCase() === wanted.toLowerCase());
  if (!accepts("payTo", filter.payTo) || !accepts("scheme", filter.scheme) || !accepts("network", filter.network)) return false;
  if (filter.extensions && !(filter.extensions in item.extensions)) return false;
  return true;
}

export function listDiscoveryItems(items: readonly DiscoveryItem[], query: z.infer<typeof ListQuery>) {
  const matching = items.filter((item) => matchesFilters(item, query));
  return {
    x402Version: 2,
    items: matching.slice(query.offset, query.offset + query.limit),
    pagination: { limit: query.limit, offset: query.offset, total: matching.length },
  };
}

function searchableFields(item: DiscoveryItem): SearchableFields {
  return { names: [item.metadata.name, item.serviceName], tags: item.tags, path: item.metadata.path, description: item.description };
}

/**
 * Keyword search, best match first. The matches are returned as `resources` (what the
 * official Bazaar client reads) and, identically, as `items` (the list endpoint's name).
 */
export function searchDiscoveryItems(items: readonly DiscoveryItem[], query: z.infer<typeof SearchQuery>) {
  const ranked = rankBySearch(
    query.query,
    items.filter((item) => matchesFilters(item, query)),
    searchableFields,
  ).slice(0, query.limit);
  return {
    x402Version: 2,
    query: query.query,
    resources: ranked,
    items: ranked,
    partialResults: false,
    pagination: { limit: query.limit, cursor: null },
  };
}
