/**
 * What the guarded fetch lets through, and whether a failed request may have reached the
 * server, against real loopback servers that the allowlist admits, the way the local world
 * uses it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { allowService, PAYMENT_REQUIRED, service, startLoopbackServices, stopLoopbackServices } from "../../tests/support/loopback-services";
import { startLoopbackServer } from "../../tests/support/loopback-server";
import { createGuardedFetch, GuardedFetchError, type OutboundLookup } from "./guarded-fetch";

beforeAll(startLoopbackServices);
afterAll(stopLoopbackServices);

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
    const byName = await createGuardedFetch({ allowlist: [`devnet.test:${service.port}`], lookup })(`http://devnet.test:${service.port}/echo`);
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
    const error = await expectRefusal(
      createGuardedFetch({ allowlist: allowService() })(`${service.origin}/reset`, { method: "POST", body: "{}" }),
      "connection_lost",
    );
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
