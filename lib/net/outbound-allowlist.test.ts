import { describe, expect, it } from "vitest";
import { compileAllowlist, parseAllowlist, parseAllowlistEntry } from "./outbound-allowlist";

describe("parseAllowlist", () => {
  it("splits on commas and whitespace", () => {
    expect(parseAllowlist(" 127.0.0.1:4021, 127.0.0.1:4022\nlocalhost ,, 10.0.0.0/8 ")).toEqual([
      "127.0.0.1:4021",
      "127.0.0.1:4022",
      "localhost",
      "10.0.0.0/8",
    ]);
    expect(parseAllowlist("")).toEqual([]);
  });

  it.each([
    "127.0.0.1:0",
    "127.0.0.1:70000",
    "127.0.0.1:",
    "10.0.0.0/40",
    "http://127.0.0.1",
    "127.1",
    "0x7f.1",
    "::1:4021x",
    "[127.0.0.1]:80",
    "bad_host!",
    "a:b:c",
    "1.2.3.4.5",
  ])("rejects %j with a message naming it", (entry) => {
    expect(() => parseAllowlist(entry)).toThrow(/allowlist entry/);
  });

  it("parses each entry form", () => {
    expect(parseAllowlistEntry("127.0.0.1")).toMatchObject({ kind: "address", port: undefined });
    expect(parseAllowlistEntry("127.0.0.1:4021")).toMatchObject({ kind: "address", port: 4021 });
    expect(parseAllowlistEntry("::1")).toMatchObject({ kind: "address", port: undefined });
    expect(parseAllowlistEntry("[::1]:4021")).toMatchObject({ kind: "address", port: 4021 });
    expect(parseAllowlistEntry("127.0.0.0/8")).toMatchObject({ kind: "range" });
    expect(parseAllowlistEntry("Devnet.Local:4021")).toEqual({ kind: "host", hostname: "devnet.local", port: 4021 });
  });
});

describe("compileAllowlist", () => {
  const target = (hostname: string, port: number, address: string) => ({ hostname, port, address });

  it("matches addresses, with and without ports", () => {
    const allowlist = compileAllowlist(["127.0.0.1:4021", "10.1.1.1"]);
    expect(allowlist.allows(target("127.0.0.1", 4021, "127.0.0.1"))).toBe(true);
    expect(allowlist.allows(target("127.0.0.1", 4022, "127.0.0.1"))).toBe(false);
    expect(allowlist.allows(target("10.1.1.1", 22, "10.1.1.1"))).toBe(true);
    // One host, one identity: the IPv4-mapped form matches the IPv4 entry.
    expect(allowlist.allows(target("::ffff:127.0.0.1", 4021, "::ffff:127.0.0.1"))).toBe(true);
  });

  it("matches CIDR ranges on the resolved address", () => {
    const allowlist = compileAllowlist(["127.0.0.0/8"]);
    expect(allowlist.allows(target("anything.test", 80, "127.5.6.7"))).toBe(true);
    expect(allowlist.allows(target("anything.test", 80, "10.0.0.1"))).toBe(false);
  });

  it("matches host names on the URL's name, whatever they resolve to", () => {
    const allowlist = compileAllowlist(["devnet.local:4021", "localhost"]);
    expect(allowlist.allows(target("devnet.local", 4021, "10.9.9.9"))).toBe(true);
    expect(allowlist.allows(target("DEVNET.LOCAL.", 4021, "10.9.9.9"))).toBe(true);
    expect(allowlist.allows(target("devnet.local", 80, "10.9.9.9"))).toBe(false);
    expect(allowlist.allows(target("localhost", 3000, "::1"))).toBe(true);
    expect(allowlist.allows(target("evil.localhost.example", 3000, "127.0.0.1"))).toBe(false);
  });

  it("allows nothing when empty", () => {
    expect(compileAllowlist([]).allows(target("127.0.0.1", 80, "127.0.0.1"))).toBe(false);
  });

  it("throws on an invalid entry", () => {
    expect(() => compileAllowlist(["nope nope"])).toThrow(/allowlist entry/);
  });
});
