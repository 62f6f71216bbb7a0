/**
 * Plain node:http plumbing for the foreign world's servers (foreign-world.ts): loopback only,
 * ports chosen by the system, and what each paid service records about the requests it got.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as a foreign service saw it: method, path with its query, and whether it carried a payment. */
export type SeenRequest = { method: string; path: string; paid: boolean };

/** A request a foreign service answered after its payment was verified: what exactly was paid for. */
export type ServedRequest = { method: string; path: string; body?: unknown };

/** One paid service of the foreign world, as the tests look at it. */
export type ForeignService = {
  /** Where the service answers (for a path-parameter route, its listed template URL). */
  resource: string;
  /** The listening origin, for the app's outbound allowlist. */
  host: string;
  payTo: `0x${string}`;
  price: bigint;
  /** Every request the service received, in order. */
  requests: SeenRequest[];
  /** The requests it served with a verified payment, in order. */
  served: ServedRequest[];
  stop(): Promise<void>;
};

export type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;

/** A server on 127.0.0.1 and a free port, answering with `handler` when one is given. */
export async function listen(handler?: Handler): Promise<{ server: Server; origin: string }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const created = createServer();
    created.once("error", reject);
    created.listen(0, "127.0.0.1", () => resolve(created));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (handler) answerWith(server, origin, handler);
  return { server, origin };
}

/** Routes a server's requests to `handler`; one that throws answers 500. */
export function answerWith(server: Server, origin: string, handler: Handler): void {
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    handler(request, response, new URL(request.url ?? "/", origin)).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    // A test service needs little; a bound keeps a runaway client from filling memory.
    if (size > 64 * 1024) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The JSON of a body, or `undefined` when it is not JSON. */
export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
