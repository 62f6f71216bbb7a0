import { describe, expect, it } from "vitest";
import type { Caller } from "../access/caller";
import type { AppDependencies } from "../doors/app-dependencies";
import { requestKeyOf as chatRequestKeyOf } from "../doors/request-key";
import { isOwnRequestKey, requestKeyOf } from "./call-scope";
import type { McpContext } from "./mcp-context";

const budget = { perPayment: 1n, perRequest: 2n, daily: 3n };
const context = (caller: Caller, clientKey = "ip:direct", exchangeId = "exchange-1"): McpContext => ({
  deps: {} as AppDependencies,
  caller,
  clientKey,
  exchangeId,
  arrivedAt: 0,
});
const keyA = context({ kind: "key", id: "aaaaaaaaaaaaaaaa", name: "a", budget, agentWallet: true });
const keyB = context({ kind: "key", id: "bbbbbbbbbbbbbbbb", name: "b", budget, agentWallet: true });
const anonymous = (clientKey: string) => context({ kind: "anonymous" }, clientKey);
const chatKey = (namespace: string, idempotencyKey: string) =>
  chatRequestKeyOf(new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "idempotency-key": idempotencyKey } }), namespace, []).key;

describe("the request key of an MCP call", () => {
  it("is the caller's idempotencyKey, else its JSON-RPC id, in the caller's length-prefixed namespace", () => {
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 4 })).toBe("mcp:20:key:aaaaaaaaaaaaaaaa:buy:key:k1");
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 9 })).toBe(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 4 }));
    expect(requestKeyOf(keyA, "buy", { requestId: 4 })).toMatch(/^mcp:20:key:aaaaaaaaaaaaaaaa:buy:rpc:[0-9a-f]{32}$/);
    // The id's type is part of it: 4 and "4" are two requests in JSON-RPC.
    expect(requestKeyOf(keyA, "buy", { requestId: 4 })).not.toBe(requestKeyOf(keyA, "buy", { requestId: "4" }));
    // A key named like an id is not that id.
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "4", requestId: 1 })).not.toBe(requestKeyOf(keyA, "buy", { requestId: 4 }));
  });

  it("names a JSON-RPC id within its HTTP request only: another connection's same id is another call; the same idempotencyKey is the same", () => {
    const first = context(keyA.caller, "ip:direct", "exchange-1");
    const later = context(keyA.caller, "ip:direct", "exchange-2");
    for (const tool of ["buy", "ask"]) {
      expect(requestKeyOf(first, tool, { requestId: 1 })).toBe(requestKeyOf(first, tool, { requestId: 1 }));
      expect(requestKeyOf(first, tool, { requestId: 1 })).not.toBe(requestKeyOf(later, tool, { requestId: 1 }));
      expect(requestKeyOf(first, tool, { idempotencyKey: "turn-1", requestId: 1 })).toBe(requestKeyOf(later, tool, { idempotencyKey: "turn-1", requestId: 7 }));
    }
  });

  it("never matches another caller's, nor another tool's", () => {
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 1 })).not.toBe(requestKeyOf(keyB, "buy", { idempotencyKey: "k1", requestId: 1 }));
    expect(requestKeyOf(anonymous("ip:10.0.0.1"), "buy", { requestId: 1 })).not.toBe(requestKeyOf(anonymous("ip:10.0.0.2"), "buy", { requestId: 1 }));
    expect(requestKeyOf(keyA, "buy", { requestId: 1 })).not.toBe(requestKeyOf(keyA, "ask", { requestId: 1 }));
  });
});

describe("whose request key it is", () => {
  it("finds the caller's payments through both doors, and only its own", () => {
    const own = (requestKey: string) => isOwnRequestKey(keyA, requestKey);
    expect(own(requestKeyOf(keyA, "buy", { requestId: 1 }))).toBe(true);
    expect(own(requestKeyOf(context(keyA.caller, "ip:203.0.113.9", "exchange-9"), "ask", { idempotencyKey: "k", requestId: 1 }))).toBe(true);
    expect(own(chatKey("key:aaaaaaaaaaaaaaaa", "browser-turn-1"))).toBe(true);
    expect(own(requestKeyOf(keyB, "buy", { requestId: 1 }))).toBe(false);
    expect(own(chatKey("ip:direct", "browser-turn-1"))).toBe(false);
    // Paying from its own wallet is another namespace (those payments are not the agent wallet's).
    expect(own(chatKey("key:aaaaaaaaaaaaaaaa:wallet:0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "t"))).toBe(false);
  });

  it("compares namespaces whole: an address that extends the caller's is another caller", () => {
    const short = anonymous("ip:2001:db8::1");
    const long = anonymous("ip:2001:db8::1:2");
    expect(isOwnRequestKey(short, requestKeyOf(long, "buy", { idempotencyKey: "k", requestId: 1 }))).toBe(false);
    expect(isOwnRequestKey(short, chatKey("ip:2001:db8::1:2", "k"))).toBe(false);
    expect(isOwnRequestKey(long, chatKey("ip:2001:db8::1", "2:k"))).toBe(false);
    expect(isOwnRequestKey(short, chatKey("ip:2001:db8::1", "2:k"))).toBe(true);
    expect(isOwnRequestKey(long, chatKey("ip:2001:db8::1:2", "k"))).toBe(true);
  });

  it("matches no caller with a key written before namespaces carried their length", () => {
    expect(isOwnRequestKey(keyA, "mcp:key:aaaaaaaaaaaaaaaa:buy:key:k1")).toBe(false);
    expect(isOwnRequestKey(keyA, "key:key:aaaaaaaaaaaaaaaa:browser-turn-1")).toBe(false);
    expect(isOwnRequestKey(anonymous("ip:2001:db8::1"), "key:ip:2001:db8::1:2:k")).toBe(false);
  });
});
