import "server-only";
/**
 * Compares a presented secret with the configured one in constant time. Both are hashed first,
 * so neither the comparison nor an early length check tells a caller how long the secret is.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token of an `Authorization: Bearer …` header, or undefined when the header is another kind. */
export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}
