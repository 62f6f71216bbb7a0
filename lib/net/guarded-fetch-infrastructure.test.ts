/**
 * The payment network's own servers (chain RPC, facilitator) are never reached by a guarded
 * fetch that names them, even where the allowlist covers their host (the local world serves
 * everything on 127.0.0.1): refused before any socket, by every spelling, on every path, and at
 * a redirect hop. Real loopback servers count the connections they receive.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefusal } from "../../tests/support/expect-refusal";
import { startLoopbackServer, type LoopbackServer } from "../../tests/support/loopback-server";
import { createGuardedFetch, type OutboundLookup } from "./guarded-fetch";

let rpc: LoopbackServer;
let facilitator: LoopbackServer;
let service: LoopbackServer;

beforeAll(async () => {
  [rpc, facilitator, service] = await Promise.all([
    startLoopbackServer((_request, response) => response.end('{"jsonrpc":"2.0","id":1,"result":"0x"}')),
    startLoopbackServer((_request, response) => response.end("{}")),
    // A service that answers, or redirects wherever `?to=` says.
    startLoopbackServer((request, response) => {
      const to = new URL(request.url, "http://x").searchParams.get("to");
      if (to) response.writeHead(307, { location: to }).end();
      else response.end("service");
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([rpc.close(), facilitator.close(), service.close()]);
});

const names: Record<string, string[]> = { "facilitator.internal": ["127.0.0.1"], "rebound.example": ["127.0.0.1"] };
const lookup: OutboundLookup = async (hostname) => {
  if (hostname === "localhost" || hostname === "localhost.") return [{ address: "127.0.0.1" }];
  const addresses = names[hostname];
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
  return addresses.map((address) => ({ address }));
};

/** As an operator who allowlisted all of loopback would have it: only the infrastructure rule stops these. */
function serviceFetch(infrastructure = [rpc.origin, `${facilitator.origin}/`]) {
  return createGuardedFetch({ allowlist: ["127.0.0.0/8", "::1"], infrastructure, lookup });
}

function spellings(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`,
    `http://127.0.0.1:${port}/_devnet/faults`,
    `http://127.0.0.1:${port}/settle?x=1`,
    `http://localhost:${port}/`,
    `http://LOCALHOST.:${port}/`,
    `http://127.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://127.0.0.2:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `https://127.0.0.1:${port}/`,
    `http://rebound.example:${port}/`,
  ];
}

describe("the payment network's own servers are not reachable as services", () => {
  it("refuses every spelling of the RPC and the facilitator, GET or POST, before any connection", async () => {
    const guardedFetch = serviceFetch();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendTransaction", params: [{}] });
    for (const url of [...spellings(rpc.port), ...spellings(facilitator.port)]) {
      const error = await expectRefusal(guardedFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }), "infrastructure");
      expect(error.requestMayHaveArrived, url).toBe(false);
      expect(error.message).toMatch(/payment network's own server .* not a service/);
    }
    expect(rpc.connections()).toBe(0);
    expect(facilitator.connections()).toBe(0);
  });

  it("still reaches a service on the same host at another port", async () => {
    const response = await serviceFetch()(`${service.origin}/data`);
    expect(await response.text()).toBe("service");
  });

  it("refuses a redirect into the facilitator at the hop, and says the first hop was answered", async () => {
    const to = encodeURIComponent(`http://localhost:${facilitator.port}/_devnet/faults`);
    const error = await expectRefusal(serviceFetch()(`${service.origin}/moved?to=${to}`, { method: "POST", body: "{}" }), "infrastructure");
    expect(error.requestMayHaveArrived).toBe(true);
    expect(facilitator.connections()).toBe(0);
  });

  it("recognises a server configured by host name at the address it resolves to", async () => {
    const guardedFetch = serviceFetch([`http://facilitator.internal:${facilitator.port}`]);
    await expectRefusal(guardedFetch(`http://127.0.0.1:${facilitator.port}/settle`), "infrastructure");
    await expectRefusal(guardedFetch(`http://[::1]:${facilitator.port}/settle`), "infrastructure");
    expect(facilitator.connections()).toBe(0);
  });

  it("without the rule, the same allowlist reaches them: the rule is what refuses", async () => {
    const response = await serviceFetch([])(`${facilitator.origin}/_devnet/faults`);
    expect(response.status).toBe(200);
    expect(facilitator.connections()).toBe(1);
  });
});
