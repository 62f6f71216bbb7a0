import "server-only";
/**
 * `discover_services`: the Bazaar as the chat's agent sees it (the same discovery client, the
 * same listing view), narrowed by price, with each service's declared input contract.
 */
import { LISTING_NOTICE, LISTINGS_SHOWN, listedService } from "../../agent/tools/listed-service";
import { parseUsdc } from "../../money";
import type { Found, ListedApart } from "../../x402/discovery-client";
import { droppedNote } from "../../x402/uncallable-listings";
import type { McpContext, McpToolCall } from "../mcp-context";
import type { DiscoverServicesInput } from "../schemas";
import { toolResult } from "../tool-result";

export const DISCOVER_SERVICES = {
  name: "discover_services",
  title: "Discover paid services",
  description:
    "Find paid HTTP services (x402) on the payment network's Bazaar. Returns each service's name, resource URL, price per call in USDC, network, description, tags and, when the service declares it, its input contract (method, query and path parameters, body) with a one-line usage and an example call. Listings the agent could never call (an address it does not call, the payment network's own servers, this app itself) or cannot buy now (an unpaid check found them unreachable, unpayable on this network, asking more than they list, or failing) are left out and counted under dropped; includeExcluded lists the second kind apart with their reasons. Services come most relevant first, then by evidence (our own payments' outcomes there), then by price. Nothing is paid.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
} as const;

/** A listing left out because it cannot be bought now: what it is, why, and when that was found. */
function excludedService({ listing, reason, detail, checkedAt }: ListedApart) {
  return {
    name: listing.name,
    resource: listing.resource,
    price: listing.price,
    reason,
    ...(detail ? { detail } : {}),
    ...(checkedAt === undefined ? {} : { checkedAt: new Date(checkedAt).toISOString() }),
  };
}

export async function discoverServices(context: McpContext, input: DiscoverServicesInput, call: McpToolCall) {
  const { deps } = context;
  let found: Found;
  try {
    found = await deps.discovery.find(input.query, call.signal);
  } catch {
    return toolResult({ status: "unavailable", message: "Service discovery is unavailable right now. Nothing was paid." }, { isError: true });
  }
  // Validated by the schema, so a present maxPrice parses.
  const maxPrice = input.maxPrice === undefined ? undefined : (parseUsdc(input.maxPrice) as bigint);
  const { listings, dropped } = found;
  const affordable = maxPrice === undefined ? listings : listings.filter((listing) => listing.amount <= maxPrice);
  const services = affordable.slice(0, LISTINGS_SHOWN).map((listing) => ({
    ...listedService(listing),
    ...(listing.input ? { input: listing.input } : {}),
  }));
  return toolResult({
    services,
    found: affordable.length,
    currency: "USDC",
    network: deps.network.caip2,
    // Listings the agent could never call are not among the services: how many, and why.
    ...(Object.keys(dropped).length > 0 ? { dropped, droppedNote: droppedNote(dropped) } : {}),
    ...(input.includeExcluded ? { excluded: (found.apart ?? []).slice(0, LISTINGS_SHOWN).map(excludedService) } : {}),
    notice: LISTING_NOTICE,
    note: "Prices are per call. quote asks a service what a call costs now; buy pays for it.",
  });
}
