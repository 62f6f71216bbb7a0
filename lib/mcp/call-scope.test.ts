import { describe, expect, it } from "vitest";
import type { Caller } from "../access/caller";
import type { ChatDependencies } from "../chat/chat-dependencies";
import { requestKeyOf, requestKeyPrefixes } from "./call-scope";
import type { McpContext } from "./mcp-context";

const budget = { perPayment: 1n, perRequest: 2n, daily: 3n };
const context = (caller: Caller, clientKey = "ip:direct"): McpContext => ({ deps: {} as ChatDependencies, caller, clientKey, arrivedAt: 0 });
const keyA = context({ kind: "key", id: "aaaaaaaaaaaaaaaa", name: "a", budget, agentWallet: true });
const keyB = context({ kind: "key", id: "bbbbbbbbbbbbbbbb", name: "b", budget, agentWallet: true });

describe("the request key of an MCP call", () => {
  it("is the caller's idempotencyKey, else its JSON-RPC id, in the caller's namespace", () => {
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 4 })).toBe("mcp:key:aaaaaaaaaaaaaaaa:buy:key:k1");
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 9 })).toBe(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 4 }));
    expect(requestKeyOf(keyA, "buy", { requestId: 4 })).toMatch(/^mcp:key:aaaaaaaaaaaaaaaa:buy:rpc:[0-9a-f]{32}$/);
    // The id's type is part of it: 4 and "4" are two requests in JSON-RPC.
    expect(requestKeyOf(keyA, "buy", { requestId: 4 })).not.toBe(requestKeyOf(keyA, "buy", { requestId: "4" }));
    // A key named like an id is not that id.
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "4", requestId: 1 })).not.toBe(requestKeyOf(keyA, "buy", { requestId: 4 }));
  });

  it("never matches another caller's, nor another tool's", () => {
    expect(requestKeyOf(keyA, "buy", { idempotencyKey: "k1", requestId: 1 })).not.toBe(requestKeyOf(keyB, "buy", { idempotencyKey: "k1", requestId: 1 }));
    expect(requestKeyOf(context({ kind: "anonymous" }, "ip:10.0.0.1"), "buy", { requestId: 1 })).not.toBe(requestKeyOf(context({ kind: "anonymous" }, "ip:10.0.0.2"), "buy", { requestId: 1 }));
    expect(requestKeyOf(keyA, "buy", { requestId: 1 })).not.toBe(requestKeyOf(keyA, "ask", { requestId: 1 }));
  });

  it("finds the caller's payments through both doors, and only its own", () => {
    const prefixes = requestKeyPrefixes(keyA);
    const own = (requestKey: string) => prefixes.some((prefix) => requestKey.startsWith(prefix));
    expect(own(requestKeyOf(keyA, "buy", { requestId: 1 }))).toBe(true);
    expect(own("key:key:aaaaaaaaaaaaaaaa:browser-turn-1")).toBe(true);
    expect(own("conversation:key:aaaaaaaaaaaaaaaa:0f0f")).toBe(true);
    expect(own(requestKeyOf(keyB, "buy", { requestId: 1 }))).toBe(false);
    expect(own("key:ip:direct:browser-turn-1")).toBe(false);
  });
});
