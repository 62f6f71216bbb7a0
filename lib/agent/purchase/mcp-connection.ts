import "server-only";
/**
 * A connection to an MCP server with the official client (`Client` over
 * `StreamableHTTPClientTransport`), every byte of it through the agent's guarded outbound fetch:
 * the same allowlist, address checks, infrastructure refusal, time and size bounds as a paid
 * HTTP call. The guarded fetch reads each answer whole, which suits Streamable HTTP's POSTs
 * (each answer, JSON or a short event stream, ends with the response); the long-lived
 * server-to-client stream (a GET) and session deletion (a DELETE) are never opened: they are
 * answered 405 here, which the protocol allows a server to answer, so nothing waits on them.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpTransport } from "../../x402/mcp-listing";
import type { OutboundFetch } from "./purchase-types";

/** Who the agent says it is in MCP's `initialize`. */
const CLIENT_INFO = { name: "x402-payment-agent", version: "1.0.0" } as const;

export type McpTool = { name: string; description?: string; inputSchema: unknown };

export type McpConnection = {
  /** `tools/call`, with `_meta` when given; resolves with the raw result (an MCP `CallToolResult`). */
  callTool(name: string, args: Record<string, unknown>, options: { meta?: Record<string, unknown>; signal?: AbortSignal; timeoutMs: number }): Promise<unknown>;
  /** `tools/list` (its first page): a server's own declaration of its tools. */
  listTools(options: { signal?: AbortSignal; timeoutMs: number }): Promise<McpTool[]>;
  close(): Promise<void>;
};

/** Thrown for a transport this deployment does not call (see connectMcp). */
export class UnsupportedMcpTransport extends Error {}

/**
 * Connects (MCP `initialize`) to the endpoint. Only Streamable HTTP is called: the legacy SSE
 * transport needs a response stream held open for the whole session, which the guarded fetch
 * (it reads every answer whole, within its time limit) does not give.
 */
export async function connectMcp(fetch: OutboundFetch, endpoint: string, transport: McpTransport, options: { signal?: AbortSignal; timeoutMs: number }): Promise<McpConnection> {
  if (transport !== "streamable-http") throw new UnsupportedMcpTransport(`the ${transport} transport`);
  const postsOnly = (input: string | URL, init?: RequestInit): Promise<Response> =>
    (init?.method ?? "GET").toUpperCase() === "POST" ? fetch(String(input), init) : Promise.resolve(new Response(null, { status: 405, headers: { allow: "POST" } }));
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const channel = new StreamableHTTPClientTransport(new URL(endpoint), { fetch: postsOnly, reconnectionOptions: NO_RECONNECTION });
  try {
    await client.connect(channel, { signal: options.signal, timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return {
    async callTool(name, args, call) {
      return client.callTool({ name, arguments: args, ...(call.meta ? { _meta: call.meta } : {}) }, undefined, { signal: call.signal, timeout: call.timeoutMs });
    },
    async listTools(call) {
      const listed = await client.listTools(undefined, { signal: call.signal, timeout: call.timeoutMs });
      return listed.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    },
    close: () => client.close().catch(() => undefined),
  };
}

/** A stream that ends is not reopened: each answer is read whole, and a lost one is the chain's to judge. */
const NO_RECONNECTION = { maxReconnectionDelay: 0, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 };
