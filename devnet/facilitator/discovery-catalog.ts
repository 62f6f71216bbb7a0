import { z } from "zod";
import { rankBySearch, type SearchableFields } from "./search-ranking";

/**
 * One resource in the Bazaar discovery catalog, in the shape @x402/extensions' `withBazaar`
 * client reads (`DiscoveryResource`). `accepts` holds exactly the payment requirements the
 * service itself answers with in its 402, for the service's own protocol version.
 */
export type DiscoveryItem = {
  resource: string;
  /** "http" for an endpoint; "mcp" for an MCP tool, whose resource is its server's endpoint. */
  type: "http" | "mcp";
  x402Version: 1 | 2;
  accepts: Record<string, unknown>[];
  lastUpdated: string;
  description: string;
  mimeType: string;
  serviceName: string;
  tags: string[];
  /** The bazaar extension (v2 only): method, inputs and an example output. */
  extensions?: Record<string, unknown>;
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
  /** The `cursor` of the previous page (an offset here; opaque to clients). */
  cursor: z
    .string()
    .regex(/^o[0-9]{1,6}$/, "cursor is not one this facilitator gave")
    .optional(),
});

type Filter = Pick<z.infer<typeof ListQuery>, keyof typeof Filters>;

function matchesFilters(item: DiscoveryItem, filter: Filter): boolean {
  if (filter.type && item.type !== filter.type) return false;
  const accepts = (key: string, wanted: string | undefined) =>
    !wanted || item.accepts.some((accept) => String(accept[key] ?? "").toLowerCase() === wanted.toLowerCase());
  if (!accepts("payTo", filter.payTo) || !accepts("scheme", filter.scheme) || !accepts("network", filter.network)) return false;
  if (filter.extensions && !(filter.extensions in (item.extensions ?? {}))) return false;
  return true;
}

/**
 * A catalogue entry as the bazaar spec's `DiscoveryResource` has it: the devnet's own
 * `metadata` stays in the facilitator, so no client can come to depend on it.
 */
export function toDiscoveryResource(item: DiscoveryItem): Omit<DiscoveryItem, "metadata"> {
  const { metadata: _devnetOnly, ...resource } = item;
  return resource;
}

/** `DiscoveryResourcesResponse`: `x402Version`, `items`, `pagination` ({ limit, offset, total }). */
export function listDiscoveryItems(items: readonly DiscoveryItem[], query: z.infer<typeof ListQuery>) {
  const matching = items.filter((item) => matchesFilters(item, query));
  return {
    x402Version: 2,
    items: matching.slice(query.offset, query.offset + query.limit).map(toDiscoveryResource),
    pagination: { limit: query.limit, offset: query.offset, total: matching.length },
  };
}

function searchableFields(item: DiscoveryItem): SearchableFields {
  return { names: [item.metadata.name, item.serviceName], tags: item.tags, path: item.metadata.path, description: item.description };
}

/**
 * Keyword search, best match first, as `SearchDiscoveryResourcesResponse`: `x402Version`,
 * `resources`, `partialResults` and `pagination` ({ limit, cursor }), the cursor naming the next
 * page or null after the last.
 */
export function searchDiscoveryItems(items: readonly DiscoveryItem[], query: z.infer<typeof SearchQuery>) {
  const ranked = rankBySearch(
    query.query,
    items.filter((item) => matchesFilters(item, query)),
    searchableFields,
  );
  const offset = query.cursor ? Number(query.cursor.slice(1)) : 0;
  const page = ranked.slice(offset, offset + query.limit);
  const next = offset + page.length < ranked.length ? `o${offset + page.length}` : null;
  return {
    x402Version: 2,
    resources: page.map(toDiscoveryResource),
    partialResults: false,
    pagination: { limit: query.limit, cursor: next },
  };
}
