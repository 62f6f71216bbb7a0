import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { sendJson } from "../http/json-response";
import { closeServer, listen, LOOPBACK_HOST } from "../http/listen";
import { readJsonBody } from "../http/read-json-body";
import type { PaymentTerms } from "../services/payment-terms";
import { createMcpPaywall, type McpPaywall } from "./mcp-paywall";
import type { DemoMcpTool } from "./mcp-tools";

/** Where the MCP endpoint answers on its own port (Streamable HTTP). */
export const MCP_PATH = "/mcp";
/** The legacy HTTP+SSE transport: the event stream (GET), and where its messages are posted. */
export const SSE_PATH = "/sse";
export const SSE_MESSAGES_PATH = "/messages";

export type DevnetMcpTransport = "streamable-http" | "sse";

export type StartMcpServerOptions = {
  tools: readonly DemoMcpTool[];
  /** Streamable HTTP (the default), or the legacy HTTP+SSE transport that older servers still serve. */
  transport?: DevnetMcpTransport;
  terms: PaymentTerms;
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
};

export type RunningMcpServer = {
  /** The MCP endpoint (Streamable HTTP, or the SSE event stream): what the Bazaar lists as each tool's resource. */
  url: string;
  transport: DevnetMcpTransport;
  port: number;
  tools: readonly DemoMcpTool[];
  paywall: McpPaywall;
  /** Each tool's input schema exactly as `tools/list` advertises it (and the Bazaar lists it). */
  inputSchemaOf(tool: DemoMcpTool): Record<string, unknown>;
  stop(): Promise<void>;
};

/**
 * The local world's MCP server on its own loopback port, with the demo tools. Priced tools ask
 * for payment as x402's MCP transport says (mcp-paywall.ts); the free one just answers.
 *
 * - Streamable HTTP: stateless (a fresh MCP server and transport per POST, so nothing is kept
 *   between calls). A GET (the optional server-to-client stream) and a DELETE (ending a
 *   session) get 405: a stateless server has neither.
 * - HTTP+SSE: each GET of the event stream is a session (its own MCP server), whose messages
 *   are posted to the path its `endpoint` event names; the session ends with the stream.
 */
export async function startMcpServer(options: StartMcpServerOptions): Promise<RunningMcpServer> {
  let paywall: McpPaywall | undefined;
  const schemas = new Map(options.tools.map((tool) => [tool.name, toJsonSchemaCompat(tool.input, { strictUnions: true, pipeStrategy: "input" })]));
  const inputSchemaOf = (tool: DemoMcpTool) => schemas.get(tool.name) ?? {};

  function buildServer(ready: McpPaywall): McpServer {
    const mcp = new McpServer({ name: "x402-devnet-tools", version: "1.0.0" });
    for (const tool of options.tools) {
      mcp.registerTool(tool.name, { title: tool.serviceName, description: tool.description, inputSchema: tool.input }, async (args, extra) => {
        const input = args as Record<string, unknown>;
        if (tool.price !== undefined) return ready.call(tool, input, extra._meta as Record<string, unknown> | undefined, inputSchemaOf(tool));
        const outcome = tool.answer(input);
        return outcome.ok
          ? { content: [{ type: "text", text: outcome.text }], ...(outcome.structured ? { structuredContent: outcome.structured } : {}) }
          : { isError: true, content: [{ type: "text", text: outcome.text }] };
      });
    }
    return mcp;
  }

  const transport = options.transport ?? "streamable-http";
  const sessions = new Map<string, SSEServerTransport>();

  async function handleSse(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (!paywall) return sendJson(response, 503, rpcError(-32000, "The MCP server is still starting."));
    if (url.pathname === SSE_PATH && request.method === "GET") {
      const session = new SSEServerTransport(SSE_MESSAGES_PATH, response);
      const mcp = buildServer(paywall);
      sessions.set(session.sessionId, session);
      response.once("close", () => {
        sessions.delete(session.sessionId);
        void mcp.close().catch(() => undefined);
      });
      return mcp.connect(session);
    }
    if (url.pathname === SSE_MESSAGES_PATH && request.method === "POST") {
      const session = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!session) return sendJson(response, 404, rpcError(-32001, "No such session: open the event stream first."));
      const body = await readJsonBody(request);
      if (!body.ok) return sendJson(response, body.status, rpcError(-32700, body.detail));
      return session.handlePostMessage(request, response, body.value);
    }
    return sendJson(response, 404, rpcError(-32601, `The event stream is GET ${SSE_PATH}; messages are POSTed to ${SSE_MESSAGES_PATH}.`));
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", `http://${LOOPBACK_HOST}`);
    if (transport === "sse") return handleSse(request, response, url);
    const path = url.pathname.replace(/\/+$/, "");
    if (path !== MCP_PATH) return sendJson(response, 404, rpcError(-32601, `No MCP endpoint at ${path || "/"}; it is at ${MCP_PATH}.`));
    if (request.method !== "POST")
      return sendJson(response, 405, rpcError(-32000, "Method not allowed: this stateless server answers POST only."), { Allow: "POST" });
    if (!paywall) return sendJson(response, 503, rpcError(-32000, "The MCP server is still starting."));
    const body = await readJsonBody(request);
    if (!body.ok) return sendJson(response, body.status, rpcError(-32700, body.detail));
    const mcp = buildServer(paywall);
    const channel = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.once("close", () => {
      void channel.close().catch(() => undefined);
      void mcp.close().catch(() => undefined);
    });
    await mcp.connect(channel);
    await channel.handleRequest(request, response, body.value);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => sendJson(response, 500, rpcError(-32603, "The devnet MCP server failed unexpectedly.")));
  });
  const port = await listen(server);
  const url = `http://${LOOPBACK_HOST}:${port}${transport === "sse" ? SSE_PATH : MCP_PATH}`;
  try {
    paywall = await createMcpPaywall(
      { terms: options.terms, facilitatorUrl: options.facilitatorUrl, facilitatorTimeoutMs: options.facilitatorTimeoutMs, endpointUrl: url, transport },
      options.tools,
    );
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  return { url, port, transport, tools: options.tools, paywall, inputSchemaOf, stop: () => closeServer(server) };
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}
