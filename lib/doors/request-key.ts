/**
 * What identifies a chat request across retries, for at-most-once payments and the in-flight
 * claim: the caller's namespace, then the client's Idempotency-Key or the conversation. Every
 * request key, the MCP server's too (lib/mcp/call-scope.ts), is written by scopedRequestKey,
 * so its namespace can be read back whole (namespaceOfRequestKey) and compared for equality.
 */
import { createHash } from "node:crypto";
import { callerKey, type Caller } from "../access/caller";
import { AppError } from "../errors";
import { canonicalJson } from "../x402/authorization-nonce";

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Whose request keys these are, so one caller's key can never return, or rewrite, another
 * caller's recorded (possibly paid) outcome. A named caller (API key, signed-in wallet) is
 * namespaced by that credential, from any address; an anonymous one by the wallet its body
 * names (whose payments need that wallet's signature) or else by its client address. Behind no
 * trusted proxy every anonymous caller is "ip:direct"; where access is not open, anonymous
 * callers cannot make the agent wallet pay, so nothing paid is kept under that namespace.
 */
export function namespaceOf(caller: Caller, walletAddress: string | undefined, clientKey: string): string {
  const wallet = walletAddress ? `wallet:${walletAddress.toLowerCase()}` : undefined;
  const named = callerKey(caller);
  if (named) return wallet ? `${named}:${wallet}` : named;
  return wallet ?? clientKey;
}

/** Which door and what names the request: a chat Idempotency-Key, a chat conversation, an MCP call. */
export type RequestKeyKind = "key" | "conversation" | "mcp";

/**
 * `<kind>:<length of namespace>:<namespace>:<rest>`. The length makes the namespace
 * self-delimiting: without it `ip:2001:db8::1` with the key `2:k` and `ip:2001:db8::1:2` with
 * the key `k` wrote the same text, and one caller's key reached into another's namespace.
 *
 * @example
 * scopedRequestKey("key", "ip:2001:db8::1", "2:k"); // "key:14:ip:2001:db8::1:2:k"
 */
export function scopedRequestKey(kind: RequestKeyKind, namespace: string, rest: string): string {
  return `${kind}:${namespace.length}:${namespace}:${rest}`;
}

const SCOPED_HEAD = /^(?:key|conversation|mcp):([1-9]\d{0,3}):/;

/**
 * The namespace a request key was written in, read by its length; undefined for any other text,
 * including every key written before namespaces carried their length (those match no caller).
 *
 * @example
 * namespaceOfRequestKey("key:14:ip:2001:db8::1:2:k"); // "ip:2001:db8::1"
 * namespaceOfRequestKey("key:ip:2001:db8::1:2:k");    // undefined
 */
export function namespaceOfRequestKey(requestKey: string): string | undefined {
  const head = SCOPED_HEAD.exec(requestKey);
  if (!head) return undefined;
  const start = head[0].length;
  const end = start + Number(head[1]);
  return requestKey[end] === ":" ? requestKey.slice(start, end) : undefined;
}

export type RequestKey = { key: string; fromHeader: boolean };

/**
 * What makes two requests "the same" for at-most-once payments: the client's Idempotency-Key
 * when it sends one (the browser does, per message), otherwise the conversation; both within
 * the caller's namespace.
 */
export function requestKeyOf(request: Request, namespace: string, messages: { role: string; content: string }[]): RequestKey {
  const header = request.headers.get("idempotency-key")?.trim();
  if (header) {
    if (!IDEMPOTENCY_KEY.test(header)) {
      throw new AppError("bad_request:body", { errors: [{ path: "Idempotency-Key", message: "must be 1-128 characters of A-Z a-z 0-9 . _ : -" }] });
    }
    return { key: scopedRequestKey("key", namespace, header), fromHeader: true };
  }
  return { key: scopedRequestKey("conversation", namespace, createHash("sha256").update(canonicalJson(messages)).digest("hex")), fromHeader: false };
}
