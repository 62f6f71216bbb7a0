import "server-only";
/**
 * Sign-in-with-x for the user's wallet, over two requests like an approval: request 1 streams
 * the service's challenge as the exact EIP-4361 message to sign, with an HMAC (`binding`) over
 * the wallet, the request it is for and the challenge; request 2 carries the signature back in
 * the `SIGN-IN-WITH-X` header with the same binding. Nothing is stored between the two: the
 * binding is what stops a signature being swapped onto another request, wallet or challenge.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createSIWxMessage, type CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import { z } from "zod";
import type { SignInRequest } from "../stream/sign-in-request";
import { getAddress } from "viem";
import { canonicalJson } from "./authorization-nonce";
import type { CallMethod } from "./input-contract";
import { MAX_REQUEST_BODY_CHARS, RequestContentType } from "./request-body";
import { CompleteSiwxInfo } from "../stream/siwx-info";
import { challengeExpiresAt } from "./siwx-challenge";

/** The request a sign-in is for, sent again unchanged when the service takes it. */
export type SignInTarget = { url: string; method: string; body?: string; contentType?: RequestContentType };

/** A verified sign-in (lib/chat/verify-sign-in.ts), ready to be sent to the service. */
export type SignedIn = {
  service: string;
  url: string;
  method: CallMethod;
  body?: string;
  contentType?: RequestContentType;
  payer: `0x${string}`;
  nonce: string;
  /** The spec's `SIGN-IN-WITH-X` value for the service: the signed payload, nothing of ours. */
  serviceHeader: string;
};

/** Our API's header for request 2 (the spec's header name; its value carries our binding too). */
export const SIGN_IN_HEADER = "sign-in-with-x";

/** The header's JSON (base64): the signed challenge, the request it is for, the binding. */
export const SignInHeader = z.object({
  challenge: CompleteSiwxInfo,
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  signature: z.string().regex(/^0x[0-9a-fA-F]{130,2000}$/),
  request: z.object({
    url: z.string().max(2048),
    method: z.string().max(10),
    body: z.string().max(MAX_REQUEST_BODY_CHARS).optional(),
    contentType: RequestContentType.optional(),
  }),
  binding: z.string().regex(/^[0-9a-f]{64}$/),
});
export type SignInHeader = z.infer<typeof SignInHeader>;

export function signInBinding(secret: string, wallet: string, target: SignInTarget, challenge: CompleteSIWxInfo): string {
  const message = canonicalJson({
    version: 1,
    purpose: "sign-in-with-x",
    wallet: wallet.toLowerCase(),
    url: target.url,
    method: target.method.toUpperCase(),
    body: target.body,
    contentType: target.body === undefined ? undefined : target.contentType,
    challenge,
  });
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** Constant-time comparison of a binding with the one these terms give. */
export function sameBinding(secret: string, wallet: string, target: SignInTarget, challenge: CompleteSIWxInfo, given: string): boolean {
  const expected = Buffer.from(signInBinding(secret, wallet, target, challenge), "hex");
  const actual = Buffer.from(given, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** What request 1 streams beside the approval: the message exactly as the wallet signs it. */
export function buildSignInRequest(secret: string, wallet: `0x${string}`, target: SignInTarget, challenge: CompleteSIWxInfo): SignInRequest {
  return {
    // EIP-4361 names the address checksummed; the service rebuilds the message that way.
    message: createSIWxMessage(challenge, getAddress(wallet)),
    challenge: challenge as SignInRequest["challenge"],
    expiresAt: challengeExpiresAt(challenge),
    binding: signInBinding(secret, wallet, target, challenge),
  };
}

/** The header value request 2 sends: base64 of the JSON above. */
export function encodeSignInHeader(value: SignInHeader): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

export function decodeSignInHeader(header: string): SignInHeader | undefined {
  if (header.length > 24_000 || !/^[A-Za-z0-9+/]+={0,2}$/.test(header)) return undefined;
  try {
    const parsed = SignInHeader.safeParse(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
