import "server-only";
/**
 * `POST /api/mcp`: the agent as a Streamable HTTP MCP server, stateless (one server and one
 * transport per request, no session), the official SDK's Web-standard transport. Everything
 * that can be refused is refused before the transport sees the request, as the chat does: the
 * origin, the rate-limit windows, the credential and the agent-wallet access (401 with the
 * protected-resource metadata, 403), the body's size and time. GET (a standalone event stream)
 * and DELETE (a session's end) have no meaning without sessions: 405.
 */
import { randomBytes } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppDependencies } from "../doors/app-dependencies";
import { admitCaller } from "../doors/admit-caller";
import { grantPayerFor } from "../doors/grant-payer-for";
import { problemResponse } from "../errors";
import { readBoundedJson } from "../net/read-bounded-json";
import { watchCaller } from "../net/watch-caller";
import { MAX_BODY_BYTES } from "../stream/chat-request";
import { createMcpServer } from "./create-mcp-server";
import { admitToMcp, resourceMetadataUrl, siteOrigin, withResourceMetadata } from "./mcp-access";
import { checkOrigin } from "./origin-check";

export async function handleMcpRequest(request: Request, getDependencies: () => AppDependencies): Promise<Response> {
  let metadataUrl: string | undefined;
  try {
    if (request.method !== "POST") return methodNotAllowed();
    const deps = getDependencies();
    const arrivedAt = deps.now();
    metadataUrl = resourceMetadataUrl(siteOrigin(deps.env.APP_URL, request));
    checkOrigin(request, deps.env.APP_URL);
    const { caller, clientKey, rateLimit, tokenGrant } = await admitCaller(request, deps, arrivedAt);
    // A grant's token pays from its own wallet: the agent wallet's access rules do not apply to it.
    const payer = tokenGrant ? await grantPayerFor(deps, { tokenGrant, caller }, tokenGrant.walletAddress) : undefined;
    const grant = tokenGrant && payer ? { walletAddress: tokenGrant.walletAddress, payer } : undefined;
    admitToMcp(caller, deps.settings.access.mode, deps.agentAccount !== undefined && grant === undefined);
    // Read here, bounded in size and time like a chat body, then handed to the transport parsed.
    const body = await readBoundedJson(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: deps.env.BODY_READ_TIMEOUT_MS });
    // JSON-RPC batches left MCP with protocol 2025-06-18; refused, so one HTTP request (counted
    // once in the rate-limit windows) is one call at most.
    if (Array.isArray(body)) return jsonRpcError(400, -32600, "Invalid Request: batches are not supported; send one message per request.");

    const server = createMcpServer({ deps, caller, clientKey, exchangeId: randomBytes(16).toString("hex"), arrivedAt, grant });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // Closing the server aborts a call still running (its signal), as the chat stops its run
    // when the client goes away; after the answer it only frees the server.
    let closed: Promise<void> | undefined;
    const close = () => {
      stopWatching();
      return (closed ??= server.close().catch(() => undefined));
    };
    const stopWatching = watchCaller(request, () => void close());
    const response = await transport.handleRequest(request, { parsedBody: body });
    const headers = new Headers(response.headers);
    // Hop-by-hop: the platform manages connections (HTTP/2 forbids the header).
    headers.delete("connection");
    for (const [name, value] of Object.entries(rateLimit.headers)) headers.set(name, value);
    if (!response.body) {
      await close();
      return new Response(null, { status: response.status, headers });
    }
    const relayed = relayThenClose(response.body, close);
    return new Response(relayed, { status: response.status, headers });
  } catch (error) {
    return problemResponse(metadataUrl ? withResourceMetadata(error, metadataUrl) : error);
  }
}

/**
 * The transport's event stream, passed on; the server is closed once the stream has ended (the
 * answer is out) or its reader went away (the call is stopped).
 */
function relayThenClose(body: ReadableStream<Uint8Array>, close: () => Promise<void>): ReadableStream<Uint8Array> {
  const source = body.getReader();
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const { done, value } = await source.read();
      if (!done) return controller.enqueue(value);
      controller.close();
      await close();
    },
    cancel: async (reason) => {
      await source.cancel(reason).catch(() => undefined);
      await close();
    },
  });
}

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this server is stateless; send JSON-RPC messages with POST." },
      id: null,
    }),
    {
      status: 405,
      headers: { Allow: "POST", "Content-Type": "application/json" },
    },
  );
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "Content-Type": "application/json" } });
}
