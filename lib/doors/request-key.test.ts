import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { namespaceOfRequestKey, requestKeyOf, scopedRequestKey, type RequestKeyKind } from "./request-key";

const withKey = (idempotencyKey: string) => new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "idempotency-key": idempotencyKey } });

describe("request keys", () => {
  it("keep an IPv6 caller's namespace apart from a longer address's: 2001:db8::1 with key 2:k is not 2001:db8::1:2 with key k", () => {
    const first = requestKeyOf(withKey("2:k"), "ip:2001:db8::1", []).key;
    const second = requestKeyOf(withKey("k"), "ip:2001:db8::1:2", []).key;
    expect(first).not.toBe(second);
    expect(namespaceOfRequestKey(first)).toBe("ip:2001:db8::1");
    expect(namespaceOfRequestKey(second)).toBe("ip:2001:db8::1:2");
  });

  it("write the namespace's length first, for the chat's Idempotency-Key and its conversations", () => {
    expect(requestKeyOf(withKey("message-1"), "ip:198.51.100.1", []).key).toBe("key:15:ip:198.51.100.1:message-1");
    expect(requestKeyOf(new Request("http://127.0.0.1/api/chat", { method: "POST" }), "ip:direct", [{ role: "user", content: "hi" }]).key).toMatch(
      /^conversation:9:ip:direct:[0-9a-f]{64}$/,
    );
  });

  it("read back no namespace from other text, nor from keys written before the length", () => {
    for (const text of [
      "key:ip:direct:turn-1",
      "conversation:ip:direct:abc",
      "mcp:key:aaaa:buy:key:k",
      "key:99:ip:direct:k",
      "key:0::k",
      "key:9:ip:direct",
      "other:9:ip:direct:k",
      "key:09:ip:direct:k",
    ]) {
      expect(namespaceOfRequestKey(text), text).toBeUndefined();
    }
  });

  it("are injective: two namespaces never write the same key, whatever follows them, and each reads back whole", () => {
    const kind = fc.constantFrom<RequestKeyKind>("key", "conversation", "mcp");
    // Namespaces and keys drawn from the characters they are made of, colons above all.
    const text = (minLength: number) => fc.string({ unit: fc.constantFrom(":", "a", "1", "2", "f", "i", "p", "."), minLength, maxLength: 24 });
    fc.assert(
      fc.property(kind, text(1), text(1), text(0), text(0), (chosen, left, right, leftRest, rightRest) => {
        const leftKey = scopedRequestKey(chosen, left, leftRest);
        expect(namespaceOfRequestKey(leftKey)).toBe(left);
        if (left !== right) expect(leftKey).not.toBe(scopedRequestKey(chosen, right, rightRest));
      }),
    );
  });
});
