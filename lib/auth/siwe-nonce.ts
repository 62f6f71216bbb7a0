import "server-only";
/**
 * Sign-in nonces. `GET /api/auth/nonce` hands out a random nonce and sets it in a short-lived
 * signed cookie, so issuing one writes nothing to the store (an anonymous caller cannot fill it).
 * The cookie binds the nonce to the browser that asked; at sign-in the nonce is also claimed in
 * the store, so a captured message, signature and cookie cannot be replayed while they are fresh.
 */
import { generateSiweNonce } from "viem/siwe";
import { APP_SIGN_IN_NONCE_PREFIX } from "../stream/siwx-info";
import { expiredCookie, readCookie, serializeCookie } from "./cookies";
import { hasValidSignature, signValue } from "./signed-value";

export const NONCE_COOKIE = "x402_siwe_nonce";
/** How long a person has between asking for a nonce and signing in with it. */
export const NONCE_TTL_MS = 5 * 60 * 1000;
const PURPOSE = "siwe-nonce";
const COOKIE_PATH = "/api/auth";

export function issueNonce(secret: string, options: { secure: boolean; now: number }): { nonce: string; expiresAt: number; cookie: string } {
  // 32 random alphanumerics (about 190 bits) behind a prefix that marks the nonce as this app's
  // own: the agent never signs a service's challenge that carries one (lib/stream/siwx-info.ts).
  const nonce = `${APP_SIGN_IN_NONCE_PREFIX}${generateSiweNonce().slice(0, 32)}`;
  const expiresAt = options.now + NONCE_TTL_MS;
  const value = `${nonce}.${expiresAt}`;
  const cookie = serializeCookie(NONCE_COOKIE, `${value}.${signValue(PURPOSE, value, secret)}`, {
    secure: options.secure,
    path: COOKIE_PATH,
    maxAgeSeconds: NONCE_TTL_MS / 1000,
  });
  return { nonce, expiresAt, cookie };
}

/** The nonce this browser was given, if its cookie is intact and unexpired. */
export function nonceOf(request: Request, secret: string, now: number): string | undefined {
  const [nonce, expiresAt, signature, ...rest] = (readCookie(request, NONCE_COOKIE) ?? "").split(".");
  if (!nonce || !expiresAt || !signature || rest.length > 0) return undefined;
  if (!hasValidSignature(PURPOSE, `${nonce}.${expiresAt}`, signature, secret)) return undefined;
  return Number(expiresAt) > now ? nonce : undefined;
}

export function clearedNonceCookie(options: { secure: boolean }): string {
  return expiredCookie(NONCE_COOKIE, { ...options, path: COOKIE_PATH });
}

/** What marks a nonce used: the store's idempotency claims (spelled here, so auth needs no store). */
export type NonceClaims = { claim(key: string, ttlSeconds: number): Promise<{ claimed: boolean }> };

/** Marks the nonce used; false when it was used before. Held as long as the nonce could be valid. */
export async function claimNonce(idempotency: NonceClaims, nonce: string): Promise<boolean> {
  const result = await idempotency.claim(`siwe-nonce:${nonce}`, Math.ceil(NONCE_TTL_MS / 1000));
  return result.claimed;
}
