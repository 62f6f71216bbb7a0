import "server-only";
import { tool, zodSchema } from "ai";
import { z } from "zod";
import type { AgentRun } from "../agent-run";
import { LISTING_NOTICE, LISTINGS_SHOWN, listedService } from "./listed-service";
import { NOTHING_FOUND } from "../../x402/discovery-client";
import { discoveredMcpTool, listedMcpTool, MCP_TOOLS_SHOWN } from "../../x402/mcp-listed-tool";
import { addDropped, droppedNote } from "../../x402/uncallable-listings";
import { tooManyCalls } from "./too-many-calls";

export const DISCOVER_SERVICES_TOOL = "discover_services";

// Wrapped once per process, so the AI SDK converts it to JSON Schema once (see call-paid-service-tool.ts).
const DISCOVER_INPUT = zodSchema(
  z.object({
    query: z.string().max(200).optional().describe("Keywords describing the service wanted"),
  }),
);

/** Finds paid x402 services on the configured facilitator's Bazaar. */
export function createDiscoverServicesTool(run: AgentRun) {
  return tool({
    description:
      "Find paid HTTP services (x402) that can answer the user's request. Returns each service's name, resource URL, price in USDC, description, tags and, when the service declares it, its usage: the method, query and path parameters and body it takes. Paid MCP tools that match come separately, under mcpTools (endpoint, tool name, input schema). Use a short keyword query (e.g. 'weather', 'crypto price', 'news'); omit the query to list everything.",
    inputSchema: DISCOVER_INPUT,
    execute: async ({ query }, { toolCallId, abortSignal }) => {
      if (!run.admitToolCall(`discover:${query ?? ""}`)) return tooManyCalls();
      const id = `disc_${toolCallId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40)}`;
      run.tracker.discovery({ id, status: "discovering", message: query ? `Searching for “${query}”…` : "Listing services…" });
      try {
        // MCP tools are looked up beside the services; a Bazaar that cannot list them leaves just the services.
        const [found, tools] = await Promise.all([
          run.discovery.find(query, abortSignal),
          run.discovery.findMcpTools(query, abortSignal).catch(() => NOTHING_FOUND),
        ]);
        const services = found.listings.slice(0, LISTINGS_SHOWN).map(listedService);
        const mcp = tools.listings.slice(0, MCP_TOOLS_SHOWN);
        // Listings the agent could never call were left out before this answer; the page is told how many, and why.
        const dropped = addDropped(found.dropped, tools.dropped);
        const message = [
          mcp.length > 0 ? `Found ${services.length} service(s) and ${mcp.length} MCP tool(s).` : `Found ${services.length} service(s).`,
          droppedNote(dropped),
        ]
          .filter(Boolean)
          .join(" ");
        run.tracker.discovery({
          id,
          status: "discovered",
          services: [...services, ...mcp.map(discoveredMcpTool)],
          message,
          ...(Object.keys(dropped).length > 0 ? { dropped } : {}),
        });
        return {
          services,
          ...(mcp.length > 0 ? { mcpTools: mcp.map(listedMcpTool) } : {}),
          currency: "USDC",
          notice: LISTING_NOTICE,
          note:
            mcp.length > 0
              ? "Prices are per call. Call a service with call_paid_service, an MCP tool with call_paid_mcp_tool."
              : "Prices are per call. Call a service with call_paid_service.",
        };
      } catch {
        run.tracker.discovery({ id, status: "failed", reason: "service-unavailable", message: "Service discovery is unavailable." });
        return { error: "Service discovery is unavailable right now." };
      }
    },
  });
}
