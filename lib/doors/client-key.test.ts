import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { clientKeyOf } from "./client-key";

function keyFor(headers: Record<string, string>, env: Record<string, string>): string {
  return clientKeyOf(new Request("http://127.0.0.1/api/chat", { method: "POST", headers }), parseEnv(env));
}

describe("clientKeyOf", () => {
  it("behind one appending proxy, takes the rightmost X-Forwarded-For entry, not the client's own text", () => {
    const env = { TRUST_PROXY_HEADERS: "true" };
    // The client sent "203.0.113.7"; the proxy appended the address it saw.
    expect(keyFor({ "x-forwarded-for": "203.0.113.7, 198.51.100.20" }, env)).toBe("ip:198.51.100.20");
    // Whatever the client writes on the left, the bucket stays the same.
    expect(keyFor({ "x-forwarded-for": "192.0.2.1, 192.0.2.2, 198.51.100.20" }, env)).toBe("ip:198.51.100.20");
  });

  it("with TRUST_PROXY_HOPS=2, takes the second entry from the right", () => {
    const env = { TRUST_PROXY_HEADERS: "true", TRUST_PROXY_HOPS: "2" };
    expect(keyFor({ "x-forwarded-for": "203.0.113.7, 198.51.100.20, 10.0.0.5" }, env)).toBe("ip:198.51.100.20");
    // Fewer entries than proxies: all were written by the proxies, so the leftmost counts.
    expect(keyFor({ "x-forwarded-for": "198.51.100.20" }, env)).toBe("ip:198.51.100.20");
  });

  it("does not fall back to a client-supplied X-Real-IP outside Vercel", () => {
    expect(keyFor({ "x-real-ip": "203.0.113.7" }, { TRUST_PROXY_HEADERS: "true" })).toBe("ip:direct");
  });

  it("on Vercel, reads the platform's X-Real-IP", () => {
    expect(keyFor({ "x-real-ip": "198.51.100.20", "x-forwarded-for": "203.0.113.7, 198.51.100.20" }, { VERCEL: "1" })).toBe("ip:198.51.100.20");
  });

  it("ignores proxy headers unless a proxy is trusted, and refuses non-addresses", () => {
    expect(keyFor({ "x-forwarded-for": "198.51.100.20" }, {})).toBe("ip:direct");
    expect(keyFor({ "x-forwarded-for": "198.51.100.20" }, { TRUST_PROXY_HEADERS: "false", VERCEL: "1" })).toBe("ip:direct");
    expect(keyFor({ "x-forwarded-for": "198.51.100.20, not-an-address" }, { TRUST_PROXY_HEADERS: "true" })).toBe("ip:direct");
  });

  it("writes one address one way: IPv6 compressed and lower case, an IPv4-mapped address as its IPv4 address", () => {
    const env = { TRUST_PROXY_HEADERS: "true" };
    const key = (address: string) => keyFor({ "x-forwarded-for": address }, env);
    for (const spelling of ["2001:db8::1", "2001:DB8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8:0:0:0:0:0:1"]) {
      expect(key(spelling), spelling).toBe("ip:2001:db8::1");
    }
    for (const spelling of ["198.51.100.7", "::ffff:198.51.100.7", "::FFFF:c633:6407", "0:0:0:0:0:ffff:198.51.100.7"]) {
      expect(key(spelling), spelling).toBe("ip:198.51.100.7");
    }
    expect(keyFor({ "x-real-ip": "::ffff:198.51.100.7" }, { VERCEL: "1" })).toBe("ip:198.51.100.7");
    // Another address stays another caller.
    expect(key("2001:db8::1:2")).toBe("ip:2001:db8::1:2");
  });

  it("refuses a TRUST_PROXY_HOPS that is not a positive integer", () => {
    expect(() => parseEnv({ TRUST_PROXY_HOPS: "0" })).toThrow(/TRUST_PROXY_HOPS/);
    expect(() => parseEnv({ TRUST_PROXY_HOPS: "1.5" })).toThrow(/TRUST_PROXY_HOPS/);
    expect(parseEnv({}).TRUST_PROXY_HOPS).toBe(1);
  });
});
