import "server-only";
/**
 * The signed-in session: which wallet proved itself (Sign-In with Ethereum), on which chain, and
 * until when. Kept entirely in an HttpOnly cookie signed with HMAC-SHA256, so no session table is
 * needed and any instance can check it. A token is `base64url(JSON payload).signature`.
 */
import { getAddress } from "viem";
import { z } from "zod";
import { expiredCookie, readCookie, serializeCookie } from "./cookies";
import { hasValidSignature, signValue } from "./signed-value";

export const SESSION_COOKIE = "x402_session";
/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
const PURPOSE = "session";

const SessionPayload = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .transform((value) => getAddress(value)),
  chainId: z.number().int().positive(),
  /** Epoch milliseconds. */
  issuedAt: z.number().int().nonnegative(),
  expiresAt: z.number().int().positive(),
});
export type Session = z.infer<typeof SessionPayload>;

export function createSessionToken(session: Session, secret: string): string {
  const payload = Buffer.from(JSON.stringify(session)).toString("base64url");
  return `${payload}.${signValue(PURPOSE, payload, secret)}`;
}

/** The session in `token`, or undefined when it is malformed, tampered with, signed with another key or expired. */
export function readSessionToken(token: string, secret: string, now: number): Session | undefined {
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length > 0) return undefined;
  if (!hasValidSignature(PURPOSE, payload, signature, secret)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const result = SessionPayload.safeParse(parsed);
  if (!result.success) return undefined;
  const session = result.data;
  // Issued in the future means a clock or a key problem; either way it is not trusted.
  if (session.expiresAt <= now || session.issuedAt > now + 60_000) return undefined;
  return session;
}

/** The session of the request's cookie, if any and valid. */
export function sessionOf(request: Request, secret: string, now: number): Session | undefined {
  const token = readCookie(request, SESSION_COOKIE);
  return token ? readSessionToken(token, secret, now) : undefined;
}

export function sessionCookie(session: Session, secret: string, options: { secure: boolean; now: number }): string {
  return serializeCookie(SESSION_COOKIE, createSessionToken(session, secret), {
    secure: options.secure,
    maxAgeSeconds: (session.expiresAt - options.now) / 1000,
  });
}

export function clearedSessionCookie(options: { secure: boolean }): string {
  return expiredCookie(SESSION_COOKIE, options);
}
