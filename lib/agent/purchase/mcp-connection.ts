import "server-only";
/**
 * A connection to an MCP server with the official client, every byte of it through the agent's
 * guarded outbound fetch: the same allowlist, address checks, infrastructure refusal, time and
 * size bounds as a paid HTTP call.
 *
 * - Streamable HTTP (`StreamableHTTPClientTransport`): the guarded fetch reads each answer
 *   whole, which suits its POSTs (each answer, JSON or a short event stream, ends with the
 *   response); the optional server-to-client stream (a GET) and session deletion (a DELETE)
 *   are never opened: they are answered 405 here, which the protocol allows a server to
 *   answer, so nothing waits on them.
 * - The legacy HTTP+SSE transport (`SSEClientTransport`), where a listing names it: the event
 *   stream that carries every answer lives as long as the session, so it is opened with the
 *   guarded fetch's streamed variant (same rules, its byte and time bounds over the stream's
 *   whole life), once; the POSTs go through the read-whole fetch.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { timeoutSignal, type TimeoutSignal } from "../../timeout";
import type { McpTransport } from "../../x402/mcp-listing";
import type { OutboundFetch } from "./purchase-types";

/** The fetches a connection uses: `fetch` reads answers whole; `openStream` hands an event stream on. */
export type McpFetchers = { fetch: OutboundFetch; openStream?: OutboundFetch };

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
 * Connects (MCP `initialize`) to the endpoint over the listed transport. The SSE transport
 * needs `openStream`; without it, it is refused (UnsupportedMcpTransport) before anything is sent.
 * `timeoutMs` bounds the whole session: an event stream still open then is cut.
 */
export async function connectMcp(
  fetchers: McpFetchers,
  endpoint: string,
  transport: McpTransport,
  options: { signal?: AbortSignal; timeoutMs: number },
): Promise<McpConnection> {
  if (transport === "sse" && !fetchers.openStream) throw new UnsupportedMcpTransport(`the ${transport} transport`);
  const session = timeoutSignal(options.timeoutMs);
  const channel = transport === "sse" ? sseChannel(fetchers.fetch, fetchers.openStream!, endpoint, session) : streamableChannel(fetchers.fetch, endpoint);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const close = async () => {
    await client.close().catch(() => undefined);
    session.clear();
  };
  try {
    await client.connect(channel, { signal: options.signal, timeout: options.timeoutMs });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    async callTool(name, args, call) {
      return client.callTool({ name, arguments: args, ...(call.meta ? { _meta: call.meta } : {}) }, undefined, {
        signal: call.signal,
        timeout: call.timeoutMs,
      });
    },
    async listTools(call) {
      const listed = await client.listTools(undefined, { signal: call.signal, timeout: call.timeoutMs });
      return listed.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    },
    close,
  };
}

function streamableChannel(fetch: OutboundFetch, endpoint: string): Transport {
  const postsOnly = (input: string | URL, init?: RequestInit): Promise<Response> =>
    (init?.method ?? "GET").toUpperCase() === "POST"
      ? fetch(String(input), init)
      : Promise.resolve(new Response(null, { status: 405, headers: { allow: "POST" } }));
  return new StreamableHTTPClientTransport(new URL(endpoint), { fetch: postsOnly, reconnectionOptions: NO_RECONNECTION });
}

/**
 * The event stream is opened once. EventSource reopens a stream that ends, but on this
 * transport a new stream is a new session, in which the calls of this one would never be
 * answered: a second open is answered 204, which tells EventSource to stop. And since every
 * answer travels on that stream, its end closes the connection at once: a call still waiting
 * (a paid one included) fails then with "connection closed" instead of sitting out its time
 * bound, and after a payment the chain's word decides, as for a lost HTTP answer.
 */
function sseChannel(fetch: OutboundFetch, openStream: OutboundFetch, endpoint: string, session: TimeoutSignal): Transport {
  let opened = false;
  const streamOnce = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    if (opened) return new Response(null, { status: 204 });
    opened = true;
    const signal = init?.signal ? AbortSignal.any([init.signal, session.signal]) : session.signal;
    const response = await openStream(String(input), { ...init, signal });
    if (!response.body) return response;
    return new Response(
      whenEnded(response.body, () => void channel.close()),
      { status: response.status, statusText: response.statusText, headers: response.headers },
    );
  };
  const channel = new SSEClientTransport(new URL(endpoint), {
    // EventSource's fetch type is a structural subset of fetch's.
    eventSourceInit: { fetch: streamOnce as NonNullable<NonNullable<ConstructorParameters<typeof SSEClientTransport>[1]>["eventSourceInit"]>["fetch"] },
    fetch: (input, init) => fetch(String(input), init),
  });
  return channel;
}

/** The same bytes; `onEnd` runs once when the stream ends or fails (not when its reader cancels it). */
function whenEnded(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
      end();
    },
    async cancel(reason) {
      ended = true;
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

/** A stream that ends is not reopened: each answer is read whole, and a lost one is the chain's to judge. */
const NO_RECONNECTION = { maxReconnectionDelay: 0, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 };
