/**
 * Reads a sign-in-with-x (SIWX) challenge from a service's 402 (x402 `specs/extensions/
 * sign-in-with-x.md`): `extensions["sign-in-with-x"]` with `info` and `supportedChains`.
 * Everything in it is the service's text, and whatever we sign with it is an EIP-4361
 * message a wallet could use to sign in elsewhere, so a challenge is taken only when it is
 * bounded, well-formed, for our chain, and bound to the origin that sent the 402: `domain` its
 * host, `uri` and every `resources` entry on its origin. Anything else is no challenge at all,
 * and the purchase goes on as a payment.
 */
import type { CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import { z } from "zod";
import { SiwxInfo } from "../stream/siwx-info";

/**
 * The extension's key and header name. Spelled here rather than imported, because the browser
 * uses this module (the sign-in card), where the SDK (and its SIWE and Solana code) must not
 * follow.
 */
export const SIGN_IN_WITH_X = "sign-in-with-x";

const SiwxDeclaration = z.object({
  info: SiwxInfo,
  supportedChains: z
    .array(z.object({ chainId: z.string().max(64), type: z.string().max(16) }))
    .min(1)
    .max(16),
});

/** A challenge must leave at least this long to be signed, sent and checked. */
export const MIN_CHALLENGE_SECONDS_LEFT = 5;
/** The SDK's servers refuse a challenge issued longer ago than this (validateSIWxMessage). */
export const MAX_CHALLENGE_AGE_SECONDS = 5 * 60;

/**
 * The challenge of a 402, completed with our chain, or undefined when the 402 offers none we
 * should sign. `requestUrl` is the URL the 402 answered (a paid request never follows redirects).
 */
export function readSiwxChallenge(paymentRequired: unknown, requestUrl: string, chainId: number, now: number): CompleteSIWxInfo | undefined {
  const extensions = (paymentRequired as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  if (!extensions || typeof extensions !== "object" || !Object.hasOwn(extensions, SIGN_IN_WITH_X)) return undefined;
  const parsed = SiwxDeclaration.safeParse(extensions[SIGN_IN_WITH_X]);
  if (!parsed.success) return undefined;
  const { info, supportedChains } = parsed.data;
  const ours = `eip155:${chainId}`;
  if (!supportedChains.some((chain) => chain.chainId === ours && chain.type === "eip191")) return undefined;
  if (!boundToOrigin(info, requestUrl) || !timely(info, now)) return undefined;
  return { ...info, chainId: ours, type: "eip191" };
}

/** The challenge names the host and origin that sent it, and only that origin. */
export function boundToOrigin(info: Pick<SiwxInfo, "domain" | "uri" | "resources">, requestUrl: string): boolean {
  let origin: URL;
  try {
    origin = new URL(requestUrl);
  } catch {
    return false;
  }
  const sameOrigin = (value: string) => {
    try {
      return new URL(value).origin === origin.origin;
    } catch {
      return false;
    }
  };
  return info.domain === origin.host && sameOrigin(info.uri) && (info.resources ?? []).every(sameOrigin);
}

/** Issued, not yet expired with time to spare, and not waiting for a `notBefore` still ahead. */
export function timely(info: Pick<SiwxInfo, "issuedAt" | "expirationTime" | "notBefore">, now: number): boolean {
  const issuedAt = Date.parse(info.issuedAt);
  if (Number.isNaN(issuedAt) || now - issuedAt > MAX_CHALLENGE_AGE_SECONDS * 1000) return false;
  if (info.expirationTime !== undefined && Date.parse(info.expirationTime) - now < MIN_CHALLENGE_SECONDS_LEFT * 1000) return false;
  return info.notBefore === undefined || Date.parse(info.notBefore) <= now;
}

/** When a challenge stops being usable (epoch seconds): its expiry, or the SDK's age limit. */
export function challengeExpiresAt(info: Pick<SiwxInfo, "issuedAt" | "expirationTime">): number {
  const byAge = Date.parse(info.issuedAt) + MAX_CHALLENGE_AGE_SECONDS * 1000;
  const byExpiry = info.expirationTime === undefined ? byAge : Date.parse(info.expirationTime);
  return Math.floor(Math.min(byAge, byExpiry) / 1000);
}
