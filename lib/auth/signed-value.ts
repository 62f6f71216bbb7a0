import "server-only";
/**
 * HMAC-SHA256 signatures over short text values (cookies), checked in constant time. Each use
 * passes its own `purpose`, so a value signed for one cookie is never accepted as another.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export function signValue(purpose: string, value: string, secret: string): string {
  return createHmac("sha256", secret).update(`${purpose}\n${value}`).digest("base64url");
}

/** True when `signature` is the signature of `value` for `purpose` under `secret`. */
export function hasValidSignature(purpose: string, value: string, signature: string, secret: string): boolean {
  const expected = Buffer.from(signValue(purpose, value, secret));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
