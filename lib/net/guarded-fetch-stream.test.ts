/**
 * The guarded fetch's streamed bodies (`body: "streamed"`, for an MCP server's SSE event stream)
 * against a real loopback server: the answer is handed on while the server still writes, and the
 * byte bound, the time bound and a reader's cancel hold over the stream's whole life.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectGarbage } from "../../tests/support/collect-garbage";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { createGuardedFetch } from "./guarded-fetch";

let server: Server;
let origin: string;
let allowlist: string[];
/** Responses the server keeps open, by path, so a test can write to or end them. */
const open = new Map<string, ServerResponse>();
const closedByClient: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write("event: endpoint\ndata: /messages\n\n");
    if (path === "/flood") {
      const block = `data: ${"x".repeat(1000)}\n\n`;
      const timer = setInterval(() => response.write(block), 1);
      response.on("close", () => clearInterval(timer));
      return;
    }
    open.set(path, response);
    response.on("close", () => {
      if (!response.writableEnded) closedByClient.push(path);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  allowlist = [`127.0.0.1:${port}`];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { done, value } = await reader.read();
  return done ? "" : new TextDecoder().decode(value);
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("streamed bodies", () => {
  it("hands the answer on while the server still writes, and ends when the server does", async () => {
    const response = await createGuardedFetch({ allowlist, body: "streamed" })(`${origin}/live`);
    const reader = response.body!.getReader();
    expect(await readText(reader)).toContain("event: endpoint");
    open.get("/live")!.write("data: second\n\n");
    expect(await readText(reader)).toBe("data: second\n\n");
    open.get("/live")!.end();
    expect((await reader.read()).done).toBe(true);
  });

  it("buffered (the default) would have waited for the end: the same server never answers within its time bound", async () => {
    await expectRefusal(createGuardedFetch({ allowlist, timeoutMs: 300 })(`${origin}/never-ends`), "timeout");
  });

  it("errors the stream with response_too_large once it grows past the byte bound, and drops the connection", async () => {
    const response = await createGuardedFetch({ allowlist, body: "streamed", maxResponseBytes: 64 * 1024 })(`${origin}/flood`);
    const reader = response.body!.getReader();
    let received = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        received += value.byteLength;
      }
    })().catch((error: unknown) => error);
    await expectRefusal(Promise.reject(failure), "response_too_large");
    expect(received).toBeLessThanOrEqual(64 * 1024);
  });

  it("errors the stream with timeout when it outlives the time bound, and drops the connection", async () => {
    const response = await createGuardedFetch({ allowlist, body: "streamed", timeoutMs: 300 })(`${origin}/slow`);
    const reader = response.body!.getReader();
    expect(await readText(reader)).toContain("event: endpoint");
    await expectRefusal(reader.read(), "timeout");
    await until(() => closedByClient.includes("/slow"));
  });

  it("a reader that cancels closes the connection", async () => {
    const response = await createGuardedFetch({ allowlist, body: "streamed" })(`${origin}/cancelled`);
    await response.body!.cancel();
    await until(() => closedByClient.includes("/cancelled"));
  });

  it("a caller's abort closes the connection, even after the Request the fetch made was garbage collected", async () => {
    const caller = new AbortController();
    const response = await createGuardedFetch({ allowlist, body: "streamed" })(`${origin}/abandoned`, { signal: caller.signal });
    const reader = response.body!.getReader();
    expect(await readText(reader)).toContain("event: endpoint");
    await collectGarbage();
    caller.abort(new Error("the run ended"));
    await expect(reader.read()).rejects.toThrow("the run ended");
    await until(() => closedByClient.includes("/abandoned"));
  });

  it("keeps the address rules: a loopback server outside the allowlist is refused before anything is sent", async () => {
    await expectRefusal(createGuardedFetch({ body: "streamed" })(`${origin}/live-2`), "blocked_address");
    expect(open.has("/live-2")).toBe(false);
  });
});
