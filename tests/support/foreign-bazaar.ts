/**
 * A foreign discovery server that answers exactly the bazaar spec's response shapes and
 * nothing else: `GET /discovery/resources` with `items` and offset `pagination`, and
 * `GET /discovery/search` with `resources`, `partialResults` and a cursor `pagination`. Its
 * answers are typed with @x402/extensions' own response types, so a field the spec does not
 * name cannot slip in. Search ranks by how many of the query's words an entry's name, tags,
 * description or URL contains, as a keyword search would.
 */
import type { DiscoveryResource, DiscoveryResourcesResponse, SearchDiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import { close, listen, sendJson } from "./foreign-http";

export type ForeignBazaar = { url: string; stop(): Promise<void> };

export async function startForeignBazaar(catalogue: readonly DiscoveryResource[]): Promise<ForeignBazaar> {
  const { server, origin } = await listen(async (request, response, url) => {
    if (request.method !== "GET") return void response.writeHead(405, { allow: "GET" }).end();
    if (url.pathname === "/discovery/resources") {
      const offset = Math.max(0, Number(url.searchParams.get("offset") ?? 0) || 0);
      const limit = Math.max(1, Number(url.searchParams.get("limit") ?? 20) || 20);
      const page: DiscoveryResourcesResponse = {
        x402Version: 2,
        items: catalogue.slice(offset, offset + limit),
        pagination: { limit, offset, total: catalogue.length },
      };
      return sendJson(response, 200, page);
    }
    if (url.pathname === "/discovery/search") {
      const found: SearchDiscoveryResourcesResponse = {
        x402Version: 2,
        resources: rank(url.searchParams.get("query") ?? "", catalogue),
        partialResults: false,
        pagination: { limit: 20, cursor: null },
      };
      return sendJson(response, 200, found);
    }
    response.writeHead(404).end();
  });
  return { url: origin, stop: () => close(server) };
}

function rank(query: string, catalogue: readonly DiscoveryResource[]): DiscoveryResource[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3);
  return catalogue
    .map((entry) => {
      const text = [entry.serviceName ?? "", entry.description ?? "", entry.resource, ...(entry.tags ?? [])].join(" ").toLowerCase();
      return { entry, score: words.filter((word) => text.includes(word)).length };
    })
    .filter((scored) => scored.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((scored) => scored.entry);
}
