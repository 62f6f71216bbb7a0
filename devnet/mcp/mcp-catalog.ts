import { formatUsdc } from "../../lib/money";
import type { DiscoveryItem } from "../facilitator/discovery-catalog";
import type { RunningMcpServer } from "./mcp-server";

/**
 * The priced MCP tools as the Bazaar lists them: `type: "mcp"`, the MCP endpoint as the
 * resource (the bazaar spec: a tool is the pair of `resource.url` and its tool name), the
 * tool's payment requirements, and its bazaar extension (`info.input`: type "mcp", the tool
 * name, its input schema, the transport). A free tool asks for no payment, so it is not an
 * x402 resource and is not listed; the coordinates file names it.
 */
export function mcpDiscoveryItems(server: RunningMcpServer, lastUpdated: string): DiscoveryItem[] {
  return server.tools.flatMap((tool) => {
    if (tool.price === undefined) return [];
    return [
      {
        resource: server.url,
        type: "mcp" as const,
        x402Version: 2 as const,
        accepts: server.paywall.acceptsFor(tool) as unknown as Record<string, unknown>[],
        lastUpdated,
        description: tool.description,
        mimeType: "application/json",
        serviceName: tool.serviceName,
        tags: tool.tags,
        extensions: server.paywall.discoveryExtensionFor(tool, server.inputSchemaOf(tool)),
        metadata: {
          name: listedName(server, tool.name),
          path: `${new URL(server.url).pathname}#${tool.name}`,
          price: formatUsdc(tool.price),
          amount: tool.price.toString(),
          offline: false,
        },
      },
    ];
  });
}

/** Every tool of the MCP server as the coordinates file describes it, free ones included. */
export function mcpCoordinatesEntries(server: RunningMcpServer) {
  return server.tools.map((tool) => ({
    name: listedName(server, tool.name),
    url: server.url,
    toolName: tool.name,
    transport: server.transport,
    price: formatUsdc(tool.price ?? 0n),
    amount: (tool.price ?? 0n).toString(),
    description: tool.description,
    arguments: tool.example,
    listed: tool.price !== undefined,
  }));
}

/** The same tool served over SSE as well is named apart (`translate-sse`), so names stay unique. */
function listedName(server: RunningMcpServer, toolName: string): string {
  return server.transport === "sse" ? `${toolName}-sse` : toolName;
}
