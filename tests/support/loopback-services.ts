/**
 * Two loopback servers for the guarded fetch's tests (lib/net/guarded-fetch*.test.ts): `service`
 * answers by path (echo, 402, redirects, sized and compressed bodies, a hang, a reset, a body
 * that never ends), `other` echoes as a second origin. The bindings are live.
 */
import { gzipSync } from "node:zlib";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server";

export let service: LoopbackServer;
export let other: LoopbackServer;
/** The `PAYMENT-REQUIRED` header `/paid` answers with. */
export const PAYMENT_REQUIRED = Buffer.from(JSON.stringify({ x402Version: 2, accepts: [] })).toString("base64");

/** Before all tests of a file: starts both servers. */
export async function startLoopbackServices(): Promise<void> {
  service = await startLoopbackServer(async (request, response) => {
    const url = new URL(request.url, "http://x");
    switch (url.pathname) {
      case "/echo":
        response.writeHead(200, { "content-type": "application/json", "x-served-by": "service" });
        response.end(JSON.stringify({ method: request.method, body: request.body, headers: request.headers }));
        return;
      case "/paid":
        response.writeHead(402, { "content-type": "application/json", "payment-required": PAYMENT_REQUIRED });
        response.end(JSON.stringify({ error: "payment required" }));
        return;
      case "/redirect": {
        const status = Number(url.searchParams.get("status") ?? 302);
        response.writeHead(status, { location: url.searchParams.get("to") ?? "/echo" }).end();
        return;
      }
      case "/chain": {
        const left = Number(url.searchParams.get("left") ?? 0);
        response.writeHead(302, { location: left > 0 ? `/chain?left=${left - 1}` : "/echo" }).end();
        return;
      }
      case "/bytes": {
        const size = Number(url.searchParams.get("size"));
        const declare = url.searchParams.get("declare");
        response.writeHead(200, declare ? { "content-length": declare } : {});
        // Chunked, in pieces, so the cap is hit mid-stream rather than by the header.
        for (let sent = 0; sent < size; sent += 256) response.write(Buffer.alloc(Math.min(256, size - sent), 97));
        response.end();
        return;
      }
      case "/gzip-bomb":
        response.writeHead(200, { "content-encoding": "gzip" });
        response.end(gzipSync(Buffer.alloc(4 * 1024 * 1024)));
        return;
      case "/hang":
        return; // never answers
      case "/reset":
        response.socket?.destroy(); // reads the request, then drops the connection
        return;
      case "/slow-body":
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("partial");
        return; // never ends
      case "/empty":
        response.writeHead(204).end();
        return;
      default:
        response.writeHead(404).end("not found");
    }
  });
  other = await startLoopbackServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ server: "other", method: request.method, body: request.body, headers: request.headers }));
  });
}

/** After all tests of a file. */
export async function stopLoopbackServices(): Promise<void> {
  await Promise.all([service.close(), other.close()]);
}

/** An allowlist admitting the first server only. */
export const allowService = () => [`127.0.0.1:${service.port}`];
