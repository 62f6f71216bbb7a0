/**
 * What a Bazaar discovery server sends, as the discovery client accepts it: one listing, a page
 * of the list, a page of a search. Lenient where the spec is loose (optional fields that do not
 * parse are dropped), bounded everywhere, and checked at compile time against the official
 * package's own response types.
 */
import type { DiscoveryResourcesResponse, SearchDiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import { z } from "zod";

export const DiscoveryItem = z.looseObject({
  // The spec allows "the resource URL or identifier"; only an http(s) URL is something we can call.
  resource: z.string().max(2048).refine(isHttpUrl),
  type: z.string().optional(),
  x402Version: z.number().int().min(1).max(2),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  description: z.string().max(2000).optional().catch(undefined),
  serviceName: z.string().max(200).optional().catch(undefined),
  tags: z.array(z.string().max(64)).max(32).optional().catch(undefined),
  extensions: z.record(z.string(), z.unknown()).optional().catch(undefined),
});

/** `GET /discovery/resources`: offset pages. */
export const ListPage = z.looseObject({
  items: z.array(z.unknown()).max(1000),
  pagination: z
    .looseObject({ limit: z.number().int().min(0), offset: z.number().int().min(0), total: z.number().int().min(0) })
    .optional()
    .catch(undefined),
});

/** `GET /discovery/search`: ranked, optionally paged by an opaque cursor. */
export const SearchPage = z.looseObject({
  resources: z.array(z.unknown()).max(1000),
  partialResults: z.boolean().optional().catch(undefined),
  pagination: z
    .looseObject({ limit: z.number().int().min(0).optional(), cursor: z.string().min(1).max(2048).nullable().optional() })
    .nullable()
    .optional()
    .catch(undefined),
});

// Whatever the package's own types allow must pass these schemas (checked when compiling).
// (The mapped type turns the package's interfaces into plain object types, which may be
// compared with the schemas' open index signatures.)
type Accepts<Schema extends z.ZodType, Wire> = { [Key in keyof Wire]: Wire[Key] } extends z.input<Schema> ? true : never;
export const WIRE_SHAPES_MATCH: [Accepts<typeof ListPage, DiscoveryResourcesResponse>, Accepts<typeof SearchPage, SearchDiscoveryResourcesResponse>] = [
  true,
  true,
];

/** Only an http(s) URL is something the agent can call. */
function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
}
