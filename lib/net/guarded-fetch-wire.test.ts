/**
 * What a service sees and sends back through the guarded fetch, now that it sends through
 * undici's dispatcher instead of its `fetch`: fetch's default headers where the caller set none,
 * its content decoding (gzip, deflate wrapped or raw, br, several codings, an unknown one left
 * as it came) and its bad-port refusal; an answer no Response can hold is a garbled one.
 * Against real loopback servers.
 */
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { startLoopbackServer, type LoopbackServer } from "../../tests/support/loopback-server";
import { createGuardedFetch } from "./guarded-fetch";

const TEXT = JSON.stringify({ forecast: "sunny", words: "a body long enough to be worth compressing ".repeat(20) });

const ENCODED: Record<string, Buffer> = {
  gzip: gzipSync(TEXT),
  deflate: deflateSync(TEXT),
  "deflate-raw": deflateRawSync(TEXT),
  br: brotliCompressSync(TEXT),
  "gzip-then-br": brotliCompressSync(gzipSync(TEXT)),
};

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname.slice(1);
    if (path === "deflate-bomb") {
      response.writeHead(200, { "content-encoding": "deflate" });
      response.end(deflateRawSync(Buffer.alloc(4 * 1024 * 1024)));
      return;
    }
    if (path === "status-999") {
      response.writeHead(999).end("?");
      return;
    }
    if (path === "echo") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(request.headers));
      return;
    }
    const coding = path === "deflate-raw" ? "deflate" : path === "gzip-then-br" ? "gzip, br" : path;
    const body = path === "unknown" ? Buffer.from("kept as it came") : ENCODED[path];
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json", "content-encoding": path === "unknown" ? "x-custom" : coding });
    response.end(body);
  });
});

afterAll(() => server.close());

const guarded = () => createGuardedFetch({ allowlist: [`127.0.0.1:${server.port}`] });

describe("the request a service sees", () => {
  it("carries fetch's default headers where the caller set none, and the caller's where it did", async () => {
    const defaults = (await (await guarded()(`${server.origin}/echo`)).json()) as Record<string, string>;
    expect(defaults).toMatchObject({ accept: "*/*", "accept-language": "*", "accept-encoding": "gzip, deflate, br" });
    expect(defaults["user-agent"]).toBeTruthy();
    const chosen = (await (await guarded()(`${server.origin}/echo`, { headers: { accept: "application/json", "user-agent": "agent/1" } })).json()) as Record<
      string,
      string
    >;
    expect(chosen).toMatchObject({ accept: "application/json", "user-agent": "agent/1" });
  });
});

describe("the answer's content coding", () => {
  it.each(["gzip", "deflate", "deflate-raw", "br", "gzip-then-br"])("decodes %s, and drops the headers that described the coded body", async (path) => {
    const response = await guarded()(`${server.origin}/${path}`);
    expect(await response.text()).toBe(TEXT);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("content-length")).toBeNull();
  });

  it("counts decoded bytes of raw deflate too: a small body that would expand past the cap is refused", async () => {
    await expectRefusal(
      createGuardedFetch({ allowlist: [`127.0.0.1:${server.port}`], maxResponseBytes: 64 * 1024 })(`${server.origin}/deflate-bomb`),
      "response_too_large",
    );
  });

  it("leaves a body in a coding it does not know as it came", async () => {
    expect(await (await guarded()(`${server.origin}/unknown`)).text()).toBe("kept as it came");
  });
});

describe("an answer no Response can hold", () => {
  it("is a garbled answer: connection_lost, and the request may have arrived", async () => {
    const error = await expectRefusal(guarded()(`${server.origin}/status-999`), "connection_lost");
    expect(error.requestMayHaveArrived).toBe(true);
  });
});

describe("ports of other protocols", () => {
  let listener: TcpServer | undefined;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    // Ports on the Fetch standard's bad-port list that need no privileges; the first free one.
    for (const candidate of [6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]) {
      const attempt = createTcpServer(() => (connections += 1));
      const bound = await new Promise<boolean>((resolve) => {
        attempt.once("error", () => resolve(false));
        attempt.listen(candidate, "127.0.0.1", () => resolve(true));
      });
      if (bound) {
        listener = attempt;
        port = candidate;
        return;
      }
    }
  });

  afterAll(() => new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve())));

  it("refuses a port of the bad-port list before connecting, though something listens and the allowlist names it", async () => {
    if (!listener) throw new Error("no port of the bad-port list was free on 127.0.0.1");
    const error = await expectRefusal(createGuardedFetch({ allowlist: [`127.0.0.1:${port}`] })(`http://127.0.0.1:${port}/`), "connect_failed");
    expect(error.requestMayHaveArrived).toBe(false);
    expect(connections).toBe(0);
  });
});
