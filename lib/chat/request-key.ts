/**
 * What identifies a chat request across retries, for at-most-once payments and the in-flight
 * claim: the caller's namespace, then the client's Idempotency-Key or the conversation.
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

export type RequestKey = { key: string; fromHeader: boolean };

/**
 * What makes two requests "the same" for at-most-once payments: the client's Idempotency-Key
 * when it sends one (the browser does, per message), otherwise the conversation; both within
 * the caller's namespace.
 */
export function requestKeyOf(request: Request, caller: string, messages: { role: string; content: string }[]): RequestKey {
  const header = request.headers.get("idempotency-key")?.trim();
  if (header) {
    if (!IDEMPOTENCY_KEY.test(header)) {
      throw new AppError("bad_request:body", { errors: [{ path: "Idempotency-Key", message: "must be 1-128 characters of A-Z a-z 0-9 . _ : -" }] });
    }
    return { key: `key:${caller}:${header}`, fromHeader: true };
  }
  return { key: `conversation:${caller}:${createHash("sha256").update(canonicalJson(messages)).digest("hex")}`, fromHeader: false };
}

