/**
 * Test support: a real HTTP server on a loopback address (127.0.0.1 unless told "::1") and a
 * free port, which records every connection and request, so tests can prove that a refused host
 * was never connected to.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type RecordedRequest = { method: string; url: string; headers: IncomingMessage["headers"]; body: string };

export type LoopbackServer = {
  port: number;
  origin: string;
  /** Sockets accepted so far (a refused host must leave this at zero). */
  connections: () => number;
  requests: RecordedRequest[];
  close: () => Promise<void>;
};

export type LoopbackHandler = (request: RecordedRequest, response: ServerResponse) => unknown;

/**
 * Starts a server whose handler sees each request with its body already read.
 *
 * @example
 * const server = await startLoopbackServer((request, response) => response.end("ok"));
 * await server.close();
 */
export async function startLoopbackServer(handler: LoopbackHandler, options: { host?: "127.0.0.1" | "::1" } = {}): Promise<LoopbackServer> {
  const host = options.host ?? "127.0.0.1";
  let connections = 0;
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const recorded: RecordedRequest = {
        method: incoming.method ?? "",
        url: incoming.url ?? "",
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, response)).catch(() => response.destroy());
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: host === "::1" ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
