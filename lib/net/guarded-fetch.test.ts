/**
 * What the guarded fetch lets through, and its bounds (redirects, time, size), against real
 * loopback servers that the allowlist admits, the way the local world uses it.
 */
import { gzipSync } from "node:zlib";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedFetch, GuardedFetchError, type OutboundLookup } from "./guarded-fetch";
import { startLoopbackServer, type LoopbackServer } from "../../tests/support/loopback-server";

let service: LoopbackServer;
let other: LoopbackServer;
const PAYMENT_REQUIRED = Buffer.from(JSON.stringify({ x402Version: 2, accepts: [] })).toString("base64");

beforeAll(async () => {
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
});

afterAll(async () => {
  await Promise.all([service.close(), other.close()]);
});

const allowService = () => [`127.0.0.1:${service.port}`];


describe("allowlisted loopback services", () => {
  it("GETs and returns status, headers, body and the final URL", async () => {
    const response = await createGuardedFetch({ allowlist: allowService() })(`${service.origin}/echo`);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-served-by")).toBe("service");
    expect(response.url).toBe(`${service.origin}/echo`);
    expect(response.redirected).toBe(false);
    expect(await response.json()).toMatchObject({ method: "GET" });
  });

  it("POSTs with the body and headers preserved", async () => {
    const response = await createGuardedFetch({ allowlist: allowService() })(`${service.origin}/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-custom": "kept", "payment-signature": "abc" },
      body: JSON.stringify({ question: "weather?" }),
    });
    const echoed = (await response.json()) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed.method).toBe("POST");
    expect(echoed.body).toBe('{"question":"weather?"}');
    expect(echoed.headers["content-type"]).toBe("application/json");
    expect(echoed.headers["x-custom"]).toBe("kept");
    expect(echoed.headers["payment-signature"]).toBe("abc");
  });

  it("accepts a Request and a URL as input, as wrapFetchWithPayment passes them", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService() });
    const request = new Request(`${service.origin}/echo`, { method: "PUT", body: "from a request", headers: { "x-a": "1" } });
    const echoed = (await (await guardedFetch(request)).json()) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed).toMatchObject({ method: "PUT", body: "from a request" });
    expect(echoed.headers["x-a"]).toBe("1");
    const viaUrl = await guardedFetch(new URL(`${service.origin}/echo`));
    expect(viaUrl.status).toBe(200);
  });

  it("returns a 402 as it is, with its payment headers and body", async () => {
    const response = await createGuardedFetch({ allowlist: allowService() })(`${service.origin}/paid`);
    expect(response.status).toBe(402);
    expect(response.headers.get("payment-required")).toBe(PAYMENT_REQUIRED);
    expect(await response.json()).toEqual({ error: "payment required" });
  });

  it("returns body-less statuses and 404s", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService() });
    const empty = await guardedFetch(`${service.origin}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect((await guardedFetch(`${service.origin}/nope`)).status).toBe(404);
    const head = await guardedFetch(`${service.origin}/echo`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("admits CIDR and host-name allowlist entries", async () => {
    const byRange = await createGuardedFetch({ allowlist: ["127.0.0.0/8"] })(`${service.origin}/echo`);
    expect(byRange.status).toBe(200);
    const lookup: OutboundLookup = async () => [{ address: "127.0.0.1", family: 4 }];
    const byName = await createGuardedFetch({ allowlist: [`devnet.test:${service.port}`], lookup })(
      `http://devnet.test:${service.port}/echo`,
    );
    const echoed = (await byName.json()) as { headers: Record<string, string> };
    expect(echoed.headers.host).toBe(`devnet.test:${service.port}`);
  });

  it("reports connect_failed when nothing listens", async () => {
    const closed = await startLoopbackServer((_request, response) => response.end());
    await closed.close();
    await expectRefusal(createGuardedFetch({ allowlist: ["127.0.0.1"] })(`${closed.origin}/`), "connect_failed");
  });
});

describe("whether a failed request may have reached the server", () => {
  // A paid request's header is money: only a failure that proves nothing left may say so.
  it("no: nothing listens (the connector failed before any socket existed)", async () => {
    const closed = await startLoopbackServer((_request, response) => response.end());
    await closed.close();
    const error = await expectRefusal(createGuardedFetch({ allowlist: ["127.0.0.1"] })(`${closed.origin}/`), "connect_failed");
    expect(error.requestMayHaveArrived).toBe(false);
  });

  it("no: fetch itself refused the request before handing it to the pool (a bad port)", async () => {
    const error = await expectRefusal(createGuardedFetch({ allowlist: ["127.0.0.1"] })("http://127.0.0.1:9/"), "connect_failed");
    expect(error.requestMayHaveArrived).toBe(false);
  });

  it("no: the first hop's address is refused", async () => {
    const error = await expectRefusal(createGuardedFetch()(`${service.origin}/echo`), "blocked_address");
    expect(error.requestMayHaveArrived).toBe(false);
  });

  it("yes: the server read the request and dropped the connection", async () => {
    const error = await expectRefusal(createGuardedFetch({ allowlist: allowService() })(`${service.origin}/reset`, { method: "POST", body: "{}" }), "connection_lost");
    expect(error.requestMayHaveArrived).toBe(true);
  });

  it("yes: the server answered garbage instead of HTTP", async () => {
    const { createServer } = await import("node:net");
    const garbage = createServer((socket) => socket.once("data", () => socket.end("NOT HTTP AT ALL\r\n\r\n")));
    await new Promise<void>((resolve) => garbage.listen(0, "127.0.0.1", resolve));
    const port = (garbage.address() as { port: number }).port;
    try {
      const error = await expectRefusal(createGuardedFetch({ allowlist: [`127.0.0.1:${port}`] })(`http://127.0.0.1:${port}/`), "connection_lost");
      expect(error.requestMayHaveArrived).toBe(true);
    } finally {
      await new Promise<void>((resolve) => garbage.close(() => resolve()));
    }
  });

  it("yes: the service timed out", async () => {
    const error = await expectRefusal(createGuardedFetch({ allowlist: allowService(), timeoutMs: 200 })(`${service.origin}/hang`), "timeout");
    expect(error.requestMayHaveArrived).toBe(true);
  });

  it("yes: the first hop answered with a redirect to a refused address or scheme", async () => {
    const fetchService = createGuardedFetch({ allowlist: allowService() });
    const toAddress = await expectRefusal(fetchService(`${service.origin}/redirect?to=${encodeURIComponent("http://10.0.0.1/")}`), "blocked_address");
    expect(toAddress.requestMayHaveArrived).toBe(true);
    const toScheme = await expectRefusal(fetchService(`${service.origin}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`), "blocked_scheme");
    expect(toScheme.requestMayHaveArrived).toBe(true);
  });
});

describe("redirects", () => {
  const allowBoth = () => createGuardedFetch({ allowlist: [`127.0.0.1:${service.port}`, `127.0.0.1:${other.port}`] });
  const redirect = (to: string, status = 302) => `${service.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it("follows allowed redirects and reports the final URL", async () => {
    const response = await allowBoth()(redirect(`${other.origin}/final`));
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`${other.origin}/final`);
    expect(await response.json()).toMatchObject({ server: "other" });
  });

  it("turns POST into GET without a body on 303, and keeps both on 307 and 308", async () => {
    const init = { method: "POST", body: "payload", headers: { "content-type": "text/plain" } };
    const after303 = (await (await allowBoth()(redirect("/echo", 303), init)).json()) as Record<string, unknown>;
    expect(after303).toMatchObject({ method: "GET", body: "" });
    expect((after303.headers as Record<string, string>)["content-type"]).toBeUndefined();
    for (const status of [307, 308]) {
      const kept = (await (await allowBoth()(redirect("/echo", status), init)).json()) as Record<string, unknown>;
      expect(kept).toMatchObject({ method: "POST", body: "payload" });
    }
  });

  it("drops credentials and payment headers on a cross-origin redirect only", async () => {
    const headers = { authorization: "Bearer t", "payment-signature": "sig", "x-payment": "v1", "x-other": "kept" };
    const cross = (await (await allowBoth()(redirect(`${other.origin}/`), { headers })).json()) as { headers: Record<string, string> };
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers["payment-signature"]).toBeUndefined();
    expect(cross.headers["x-payment"]).toBeUndefined();
    expect(cross.headers["x-other"]).toBe("kept");
    const same = (await (await allowBoth()(redirect("/echo"), { headers })).json()) as { headers: Record<string, string> };
    expect(same.headers.authorization).toBe("Bearer t");
    expect(same.headers["payment-signature"]).toBe("sig");
  });

  it("follows up to maxRedirects and refuses one more", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService() });
    // /chain?left=2 -> left=1 -> left=0 -> /echo is three redirects.
    expect((await guardedFetch(`${service.origin}/chain?left=2`)).status).toBe(200);
    await expectRefusal(guardedFetch(`${service.origin}/chain?left=3`), "too_many_redirects");
    await expectRefusal(
      createGuardedFetch({ allowlist: allowService(), maxRedirects: 0 })(`${service.origin}/chain?left=0`),
      "too_many_redirects",
    );
  });

  it("returns the redirect itself with redirect: manual, and refuses it with redirect: error", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService() });
    const manual = await guardedFetch(redirect("http://10.0.0.1/"), { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("http://10.0.0.1/");
    await expectRefusal(guardedFetch(redirect("/echo"), { redirect: "error" }), "too_many_redirects");
  });
});

describe("time and size bounds", () => {
  it("times out a service that never answers", async () => {
    const started = Date.now();
    await expectRefusal(createGuardedFetch({ allowlist: allowService(), timeoutMs: 300 })(`${service.origin}/hang`), "timeout");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("times out a body that never ends", async () => {
    await expectRefusal(createGuardedFetch({ allowlist: allowService(), timeoutMs: 300 })(`${service.origin}/slow-body`), "timeout");
  });

  it("keeps a caller's abort as the caller's reason", async () => {
    const controller = new AbortController();
    const pending = createGuardedFetch({ allowlist: allowService() })(`${service.origin}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user cancelled")), 50);
    await expect(pending).rejects.toThrow("user cancelled");
    await expect(createGuardedFetch()(`${service.origin}/echo`, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("accepts a body of exactly maxResponseBytes and refuses one byte more", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService(), maxResponseBytes: 1024 });
    const exact = await guardedFetch(`${service.origin}/bytes?size=1024`);
    expect((await exact.arrayBuffer()).byteLength).toBe(1024);
    await expectRefusal(guardedFetch(`${service.origin}/bytes?size=1025`), "response_too_large");
  });

  it("refuses a declared Content-Length over the cap before reading", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService(), maxResponseBytes: 1024 });
    await expectRefusal(guardedFetch(`${service.origin}/bytes?size=2048&declare=2048`), "response_too_large");
  });

  it("counts decoded bytes, so a compressed body cannot expand past the cap", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService(), maxResponseBytes: 64 * 1024 });
    await expectRefusal(guardedFetch(`${service.origin}/gzip-bomb`), "response_too_large");
  });

  it("has a 1 MiB default cap", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: allowService() });
    expect((await (await guardedFetch(`${service.origin}/bytes?size=${1024 * 1024}`)).arrayBuffer()).byteLength).toBe(1024 * 1024);
    await expectRefusal(guardedFetch(`${service.origin}/bytes?size=${1024 * 1024 + 1}`), "response_too_large");
  });
});

describe("GuardedFetchError", () => {
  it("is recognised by its marker, and found inside undici's wrapper", () => {
    const error = new GuardedFetchError("timeout", { host: "example.com" });
    expect(GuardedFetchError.isInstance(error)).toBe(true);
    expect(GuardedFetchError.isInstance({ ...error, [Symbol.for("x402-payment-agent/GuardedFetchError")]: true })).toBe(true);
    expect(GuardedFetchError.isInstance(new Error("timeout"))).toBe(false);
    expect(GuardedFetchError.isInstance(null)).toBe(false);
    expect(GuardedFetchError.find(new TypeError("fetch failed", { cause: error }))).toBe(error);
    expect(error.message).toContain("example.com");
  });

  it("rejects invalid options", () => {
    expect(() => createGuardedFetch({ timeoutMs: -1 })).toThrow();
    expect(() => createGuardedFetch({ allowlist: ["not an entry!"] })).toThrow(/allowlist entry/);
  });
});
