import { describe, expect, it, vi } from "vitest";
import type { OutboundLookup } from "./outbound-lookup";
import { compileInfrastructure } from "./infrastructure";

const dns: Record<string, string[]> = {
  "rpc.internal": ["10.0.0.5"],
  "facilitator.internal": ["127.0.0.1"],
  "x402.org": ["76.76.21.21"],
};
const lookup: OutboundLookup = async (hostname) => {
  const addresses = dns[hostname];
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
  return addresses.map((address) => ({ address }));
};

const local = compileInfrastructure(["http://127.0.0.1:8545", "http://127.0.0.1:4020/"]);
const target = (hostname: string, port: number, ...addresses: string[]) => ({ hostname, port, addresses: addresses.length > 0 ? addresses : [hostname] });

describe("compileInfrastructure", () => {
  it.each([
    ["the RPC's own spelling", target("127.0.0.1", 8545)],
    ["the facilitator", target("127.0.0.1", 4020)],
    ["localhost resolving to loopback", target("localhost", 8545, "127.0.0.1")],
    ["localhost resolving to IPv6 loopback", target("localhost", 4020, "::1")],
    ["another loopback address", target("127.0.0.2", 8545)],
    ["the unspecified address, which reaches this machine", target("0.0.0.0", 8545)],
    ["IPv6 loopback", target("::1", 4020)],
    ["IPv6 unspecified", target("::", 4020)],
    ["IPv4-mapped loopback", target("::ffff:127.0.0.1", 8545)],
    ["a name with a trailing dot", target("localhost.", 8545, "127.0.0.1")],
    ["a name that resolves to loopback among other answers", target("mixed.example", 8545, "93.184.216.34", "127.0.0.1")],
  ])("recognises %s", async (_name, connection) => {
    expect(await local.includes(connection, lookup)).toBe(true);
  });

  it.each([
    ["a service on the same host, another port", target("127.0.0.1", 4021)],
    ["a service named localhost on another port", target("localhost", 4022, "127.0.0.1")],
    ["a private host on the RPC's port", target("10.0.0.9", 8545)],
  ])("does not take %s for it", async (_name, connection) => {
    expect(await local.includes(connection, lookup)).toBe(false);
  });

  it("takes the default port of the scheme when the URL names none, and ignores the path", async () => {
    const infrastructure = compileInfrastructure(["https://x402.org/facilitator", "http://rpc.internal/"]);
    expect(await infrastructure.includes(target("X402.ORG.", 443, "76.76.21.21"), lookup)).toBe(true);
    expect(await infrastructure.includes(target("x402.org", 8443, "76.76.21.21"), lookup)).toBe(false);
    expect(await infrastructure.includes(target("rpc.internal", 80, "10.0.0.5"), lookup)).toBe(true);
  });

  it("compares a named server by address when the target is not public", async () => {
    const infrastructure = compileInfrastructure(["http://rpc.internal:8545", "http://facilitator.internal:4020"]);
    expect(await infrastructure.includes(target("10.0.0.5", 8545), lookup)).toBe(true);
    expect(await infrastructure.includes(target("other-name.internal", 8545, "10.0.0.5"), lookup)).toBe(true);
    expect(await infrastructure.includes(target("localhost", 4020, "127.0.0.1"), lookup)).toBe(true);
    expect(await infrastructure.includes(target("10.0.0.6", 8545), lookup)).toBe(false);
  });

  it("does not compare a named server by a public address, which a CDN shares with other sites", async () => {
    const spy = vi.fn(lookup);
    const infrastructure = compileInfrastructure(["https://x402.org/facilitator"]);
    expect(await infrastructure.includes(target("service-on-the-same-cdn.example", 443, "76.76.21.21"), spy)).toBe(false);
    expect(spy).not.toHaveBeenCalled();
  });

  it("treats a server name that does not resolve as no match, not as an error", async () => {
    const infrastructure = compileInfrastructure(["http://gone.internal:4020"]);
    expect(await infrastructure.includes(target("127.0.0.1", 4020), lookup)).toBe(false);
  });

  it("refuses a URL that is not one", () => {
    expect(() => compileInfrastructure(["not a url"])).toThrow(/Invalid infrastructure URL/);
    expect(() => compileInfrastructure(["ftp://127.0.0.1/"])).toThrow(/known port/);
  });
});
