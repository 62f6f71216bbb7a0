/**
 * What the guarded fetch refuses. Every refusal must happen before a socket is opened: the
 * tests spy on node:net / node:tls connect (which undici calls) and count the connections a
 * real loopback server receives. No test sends traffic to a non-loopback address.
 */
import net from "node:net";
import { expectRefusal } from "../../tests/support/expect-refusal";
import tls from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { createGuardedFetch, type OutboundLookup } from "./guarded-fetch";
import { startLoopbackServer, type LoopbackServer } from "../../tests/support/loopback-server";

let target: LoopbackServer;
let redirector: LoopbackServer;
let netConnect: MockInstance;
let tlsConnect: MockInstance;

beforeAll(async () => {
  target = await startLoopbackServer((_request, response) => response.end("reached"));
  // Redirects to whatever `?to=` says, so tests can aim it at blocked places.
  redirector = await startLoopbackServer((request, response) => {
    const to = new URL(request.url, "http://x").searchParams.get("to") ?? "/";
    response.writeHead(302, { location: to }).end();
  });
});

afterAll(async () => {
  await Promise.all([target.close(), redirector.close()]);
});

beforeEach(() => {
  netConnect = vi.spyOn(net, "connect");
  tlsConnect = vi.spyOn(tls, "connect");
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The hosts undici asked node to connect to. */
function dialedHosts(): string[] {
  return [...netConnect.mock.calls, ...tlsConnect.mock.calls].map((call) => String((call[0] as { host?: string }).host));
}

const fakeDns: Record<string, string[]> = {
  "public-looking.example": ["127.0.0.1"],
  "metadata.example": ["169.254.169.254"],
  "intranet.example": ["10.1.2.3"],
  "mixed.example": ["93.184.216.34", "192.168.0.10"],
  "mapped.example": ["::ffff:127.0.0.1"],
  "ula.example": ["fd00::1"],
};
const fakeLookup: OutboundLookup = async (hostname) => {
  const addresses = fakeDns[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

describe("non-public addresses are refused before connecting", () => {
  const loopbackSpellings = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0x7F.0.0.1:${port}/`,
    `http://127.000.000.001:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/`,
    `http://localhost:${port}/`,
    `https://127.0.0.1:${port}/`,
  ];

  it("refuses every spelling of the loopback server, which sees no connection", async () => {
    const guardedFetch = createGuardedFetch();
    for (const url of loopbackSpellings(target.port)) {
      await expectRefusal(guardedFetch(url), "blocked_address");
    }
    expect(target.connections()).toBe(0);
    expect(dialedHosts()).toEqual([]);
  });

  it.each([
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.0.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://255.255.255.255/",
    "http://0.1.2.3/",
    "http://192.0.2.1/",
    "http://198.18.0.1/",
    "http://240.0.0.1/",
    "http://[::]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[64:ff9b::a00:1]/",
    "http://[2002:a00:1::1]/",
    "http://[2001:db8::1]/",
    "https://10.0.0.1/",
    "http://012.0.0.1/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://2852039166/",
  ])("refuses %s without dialing", async (url) => {
    await expectRefusal(createGuardedFetch()(url), "blocked_address");
    expect(dialedHosts()).toEqual([]);
  });

  it.each([
    ["public-looking.example", "resolves to loopback"],
    ["metadata.example", "resolves to the metadata address"],
    ["intranet.example", "resolves to a private address"],
    ["mixed.example", "has one private answer among public ones"],
    ["mapped.example", "resolves to IPv4-mapped loopback"],
    ["ula.example", "resolves to a unique-local address"],
  ])("refuses %s, which %s", async (hostname) => {
    const lookup = vi.fn(fakeLookup);
    const error = await expectRefusal(createGuardedFetch({ lookup })(`http://${hostname}:${target.port}/`), "blocked_address");
    // The name was resolved at connect time, and nothing was dialed.
    expect(lookup).toHaveBeenCalledWith(hostname);
    expect(dialedHosts()).toEqual([]);
    expect(target.connections()).toBe(0);
    // The message names the host but never the resolved address.
    expect(error.message).toContain(hostname);
    expect(error.message).not.toMatch(/127\.0\.0\.1|169\.254|10\.1\.2\.3|192\.168|fd00/);
  });

  it("checks every new connection, so a later DNS answer cannot rebind a name to a blocked address", async () => {
    let calls = 0;
    const rebindingLookup: OutboundLookup = async () => {
      calls += 1;
      return [{ address: calls === 1 ? "127.0.0.1" : "10.0.0.1", family: 4 }];
    };
    const server = await startLoopbackServer((_request, response) => response.writeHead(200, { connection: "close" }).end("first"));
    try {
      const guardedFetch = createGuardedFetch({ allowlist: ["127.0.0.1"], lookup: rebindingLookup });
      const first = await guardedFetch(`http://rebind.example:${server.port}/`);
      expect(await first.text()).toBe("first");
      await expectRefusal(guardedFetch(`http://rebind.example:${server.port}/`), "blocked_address");
      // The only socket ever opened went to the address that was checked, never to the name.
      expect(dialedHosts()).toEqual(["127.0.0.1"]);
    } finally {
      await server.close();
    }
  });

  it("refuses an allowlisted address on a port that is not allowlisted", async () => {
    const guardedFetch = createGuardedFetch({ allowlist: [`127.0.0.1:${redirector.port}`] });
    await expectRefusal(guardedFetch(`${target.origin}/`), "blocked_address");
    expect(target.connections()).toBe(0);
  });
});

describe("schemes, credentials and malformed URLs", () => {
  it.each(["file:///etc/passwd", "ftp://example.com/", "data:text/plain,hi", "javascript:alert(1)", "ws://example.com/", "gopher://example.com/"])(
    "refuses %s",
    async (url) => {
      await expectRefusal(createGuardedFetch()(url), "blocked_scheme");
      expect(dialedHosts()).toEqual([]);
    },
  );

  it("refuses credentials in the URL without repeating them", async () => {
    const guardedFetch = createGuardedFetch();
    for (const input of ["https://alice:hunter2@example.com/", new URL("https://alice:hunter2@example.com/"), "https://hunter2@example.com/"]) {
      const error = await expectRefusal(guardedFetch(input), "credentials_in_url");
      expect(error.message).not.toContain("hunter2");
      expect(error.message).not.toContain("alice");
    }
    expect(dialedHosts()).toEqual([]);
  });

  it.each(["not a url", "/relative/path", "http://", "https://exa mple.com/"])("refuses %j as invalid", async (url) => {
    const error = await expectRefusal(createGuardedFetch()(url), "invalid_url");
    expect(error.message).not.toContain(url);
  });
});

describe("redirects are re-checked", () => {
  function via(to: string): string {
    return `${redirector.origin}/?to=${encodeURIComponent(to)}`;
  }
  const allowRedirectorOnly = () => createGuardedFetch({ allowlist: [`127.0.0.1:${redirector.port}`], lookup: fakeLookup });

  it("refuses a redirect to a private address without dialing it", async () => {
    await expectRefusal(allowRedirectorOnly()(via("http://10.0.0.1/admin")), "blocked_address");
    await expectRefusal(allowRedirectorOnly()(via("http://169.254.169.254/latest/meta-data/")), "blocked_address");
    expect(new Set(dialedHosts())).toEqual(new Set(["127.0.0.1"]));
  });

  it("refuses a redirect to a loopback server that is not allowlisted", async () => {
    await expectRefusal(allowRedirectorOnly()(via(`${target.origin}/`)), "blocked_address");
    await expectRefusal(allowRedirectorOnly()(via(`http://public-looking.example:${target.port}/`)), "blocked_address");
    await expectRefusal(allowRedirectorOnly()(via(`http://2130706433:${target.port}/`)), "blocked_address");
    expect(target.connections()).toBe(0);
  });

  it("refuses a redirect to another scheme", async () => {
    await expectRefusal(allowRedirectorOnly()(via("file:///etc/passwd")), "blocked_scheme");
    await expectRefusal(allowRedirectorOnly()(via("gopher://127.0.0.1:70/")), "blocked_scheme");
  });

  it("refuses a redirect to a URL with credentials", async () => {
    const error = await expectRefusal(allowRedirectorOnly()(via(`http://admin:s3cret@127.0.0.1:${redirector.port}/ok`)), "credentials_in_url");
    expect(error.message).not.toContain("s3cret");
  });
});
