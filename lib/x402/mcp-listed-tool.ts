/**
 * An MCP tool's listing as the model sees it in `discover_services` (beside, not among, the
 * HTTP services: it is called with another tool) and as the page sees it in the discovery event.
 */
import type { DiscoveredService } from "../stream";
import type { ServiceListing } from "./discovery-listing";
import { describeInputSchema } from "./mcp-input-schema";
import { sanitizeServiceText } from "./service-text";

/** MCP tools shown for one discovery. */
export const MCP_TOOLS_SHOWN = 10;
/** A schema longer than this (as JSON) is shown by its one-line usage only. */
const MAX_SCHEMA_SHOWN_CHARS = 2_000;

export function listedMcpTool(listing: ServiceListing) {
  const mcp = listing.mcp;
  if (!mcp) throw new Error("not an MCP tool listing");
  return {
    name: listing.name,
    endpoint: listing.resource,
    tool: mcp.toolName,
    description: mcp.description ?? listing.description,
    price: listing.price,
    network: listing.network,
    transport: mcp.transport,
    ...(listing.tags.length > 0 ? { tags: listing.tags } : {}),
    usage: describeInputSchema(mcp.inputSchema),
    // The schema itself (its texts cleaned), when short: what the arguments are checked against.
    ...shownSchema(mcp.inputSchema),
    ...(mcp.example ? { exampleArguments: mcp.example } : {}),
  };
}

/** The same listing in the stream's discovery event. */
export function discoveredMcpTool(listing: ServiceListing): DiscoveredService {
  return {
    name: listing.name,
    resource: listing.resource,
    description: listing.mcp?.description ?? listing.description,
    price: listing.price,
    network: listing.network,
    x402Version: listing.x402Version,
    ...(listing.mcp ? { usage: describeInputSchema(listing.mcp.inputSchema), mcpTool: listing.mcp.toolName } : {}),
  };
}

function shownSchema(schema: Record<string, unknown>): { inputSchema?: unknown } {
  // Keys are shown only when they look like parameter and keyword names; text values are cleaned.
  let plainKeys = true;
  const text = JSON.stringify(schema, (key, value: unknown) => {
    if (key !== "" && !/^[A-Za-z0-9_.$-]{1,64}$/.test(key)) plainKeys = false;
    return typeof value === "string" ? sanitizeServiceText(value, 200) : value;
  });
  return plainKeys && text.length <= MAX_SCHEMA_SHOWN_CHARS ? { inputSchema: JSON.parse(text) as unknown } : {};
}
