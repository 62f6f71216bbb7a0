/**
 * One Bazaar listing as the agent knows it: read from what the discovery server sent (checked
 * with zod, discovery-wire.ts), priced at its cheapest option this deployment can pay, its
 * catalogue text cleaned, and its input contract or MCP tool declaration read. A listing that
 * cannot be paid or called on this network is no listing at all.
 */
import { sanitizeResourceServiceMetadata } from "@x402/extensions/bazaar";
import { formatUsdc } from "../money";
import type { DiscoveredService } from "../stream";
import { DiscoveryItem } from "./discovery-wire";
import type { InputContract } from "./input-contract";
import { readInputContract } from "./read-input-contract";
import { mcpToolKey, readMcpContract, type McpToolContract } from "./mcp-listing";
import { selectPayableRequirement, type PayableNetwork } from "./payment-requirements";
import { sanitizeServiceText } from "./service-text";

const MAX_DESCRIPTION_CHARS = 300;

export type ServiceListing = DiscoveredService & {
  /** Base units of the cheapest payable option. */
  amount: bigint;
  tags: string[];
  /** How to call it, when the listing declares it (see input-contract.ts). */
  input?: InputContract;
  /** Set when the listing is an MCP tool (`type: "mcp"`): `resource` is then its server's endpoint. */
  mcp?: McpToolContract;
  /** Whom the listed option pays: our payments' outcomes per payee are evidence too (lib/evidence). */
  payTo?: string;
};

/** The listing a discovery item describes, or undefined when it is unreadable or unpayable here. */
export function readListing(raw: unknown, network: PayableNetwork): ServiceListing | undefined {
  const item = DiscoveryItem.safeParse(raw);
  if (!item.success) return undefined;
  const selection = payableOption(item.data.x402Version as 1 | 2, item.data.accepts, network);
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
    payTo: selection.option.payTo,
    x402Version: item.data.x402Version,
    tags: metadata.tags ?? [],
  };
  if (item.data.type?.toLowerCase() === "mcp") {
    // A tool whose declaration cannot be read (name, schema, transport) cannot be called.
    const mcp = readMcpContract(item.data);
    if (!mcp) return undefined;
    listing.mcp = mcp;
    if (metadata.serviceName === undefined) listing.name = mcp.toolName;
    return listing;
  }
  const input = readInputContract(item.data);
  if (input) listing.input = input;
  return listing;
}

// Terms as the item's version reads them, else as the other's: the spec's list example (v2 §8.1)
// says `x402Version: 1` with v2 terms (`amount`). Only the listed price depends on it.
// A metered (`upto`) listing is payable too (by the agent wallet): its price is its ceiling; and
// a channel (`batch-settlement`) one, by the agent wallet where a channel ledger is kept: its
// price is one call's.
function payableOption(version: 1 | 2, accepts: Record<string, unknown>[], network: PayableNetwork) {
  const schemes = { schemes: ["exact", "upto", "batch-settlement"] } as const;
  const selection = selectPayableRequirement({ x402Version: version, accepts }, network, schemes);
  return selection.ok ? selection : selectPayableRequirement({ x402Version: version === 1 ? 2 : 1, accepts }, network, schemes);
}

/** What makes two listings one: a resource (query aside), or an MCP tool's endpoint and name. */
export function listingKey(listing: ServiceListing): string {
  return listing.mcp ? mcpToolKey(listing.resource, listing.mcp.toolName) : listing.resource;
}

/** A resource URL without its query string and fragment (unparseable text as it is). */
export function stripQuery(resource: string): string {
  try {
    const url = new URL(resource);
    return `${url.origin}${url.pathname}`;
  } catch {
    return resource;
  }
}
