/**
 * The guarded fetch's bounds (redirects, time, size) against real loopback servers that the
 * allowlist admits.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { allowService, other, service, startLoopbackServices, stopLoopbackServices } from "../../tests/support/loopback-services";
import { createGuardedFetch } from "./guarded-fetch";

beforeAll(startLoopbackServices);
afterAll(stopLoopbackServices);

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
    await expectRefusal(createGuardedFetch({ allowlist: allowService(), maxRedirects: 0 })(`${service.origin}/chain?left=0`), "too_many_redirects");
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

  it("stops its timer once the answer is read, on success and on refusal", async () => {
    // A timer left running holds the request's async context (on a server, the whole request)
    // until it fires: under load, every finished turn stayed in memory for the timeout's length.
    const started = vi.spyOn(globalThis, "setTimeout");
    const stopped = vi.spyOn(globalThis, "clearTimeout");
    try {
      const guardedFetch = createGuardedFetch({ allowlist: allowService(), timeoutMs: 7_777, maxResponseBytes: 1024 });
      expect((await guardedFetch(`${service.origin}/echo`)).status).toBe(200);
      await expectRefusal(guardedFetch(`${service.origin}/bytes?size=1025`), "response_too_large");
      const timers = started.mock.calls.flatMap((call, index) => (call[1] === 7_777 ? [started.mock.results[index]?.value as unknown] : []));
      expect(timers).toHaveLength(2);
      for (const timer of timers) expect(stopped.mock.calls.map(([handle]) => handle)).toContain(timer);
    } finally {
      started.mockRestore();
      stopped.mockRestore();
    }
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
