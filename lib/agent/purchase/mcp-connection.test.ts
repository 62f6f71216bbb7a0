/**
 * The MCP connection over the legacy HTTP+SSE transport, against a raw loopback server that
 * plays the transport's server side: the event stream is opened once, whatever EventSource
 * would do when it ends, and its end fails what waits on it at once.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcp, UnsupportedMcpTransport } from "./mcp-connection";

let server: Server;
let origin: string;
/** What the server does with a session's `initialize`: answer it, or end the event stream. */
let onInitialize: "answer" | "end-stream" = "answer";
const gets: string[] = [];
const posts: string[] = [];
let stream: ServerResponse | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method === "GET") {
      gets.push(url.pathname);
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      // A short reconnection delay: EventSource would reopen an ended stream after 10 ms.
      response.write("retry: 10\n\nevent: endpoint\ndata: /messages?sessionId=s1\n\n");
      stream = response;
      return;
    }
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      posts.push(message.method);
      response.writeHead(202).end("Accepted");
      if (message.method !== "initialize") return;
      if (onInitialize === "end-stream") return void stream?.end();
      const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "raw-sse", version: "1.0.0" } };
      stream?.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  gets.length = 0;
  posts.length = 0;
  onInitialize = "answer";
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fetchers = { fetch: (input: string, init?: RequestInit) => fetch(input, init), openStream: (input: string, init?: RequestInit) => fetch(input, init) };
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe("connectMcp over HTTP+SSE", () => {
  it("opens the event stream once and posts its messages to the path the endpoint event names", async () => {
    const connection = await connectMcp(fetchers, `${origin}/sse`, "sse", { timeoutMs: 5_000 });
    await connection.close();
    expect(gets).toEqual(["/sse"]);
    expect(posts).toEqual(["initialize", "notifications/initialized"]);
  });

  it("fails at once when the stream ends before the answer, and never reopens it", async () => {
    onInitialize = "end-stream";
    const failure = await connectMcp(fetchers, `${origin}/sse`, "sse", { timeoutMs: 30_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).toMatch(/Connection closed/);
    // Well past EventSource's 10 ms reconnection delay: still one stream.
    await settle();
    expect(gets).toEqual(["/sse"]);
  });

  it("refuses the transport before anything is sent when the deployment has no streamed fetch", async () => {
    await expect(connectMcp({ fetch: fetchers.fetch }, `${origin}/sse`, "sse", { timeoutMs: 5_000 })).rejects.toBeInstanceOf(UnsupportedMcpTransport);
    expect(gets).toEqual([]);
    expect(posts).toEqual([]);
  });
});
