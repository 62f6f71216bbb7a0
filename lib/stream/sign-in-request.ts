/**
 * What the stream carries for "pay once, use again" with the user's wallet (the x402
 * `sign-in-with-x` extension): on an `awaiting-approval` event, the service's challenge as an
 * EIP-4361 message the wallet can sign instead of paying, when the wallet may have paid before;
 * on a `delivered` event, that the resource was served by sign-in, with no payment. The browser
 * bundles this schema: zod only, no SDK.
 */
import { z } from "zod";
import { CompleteSiwxInfo } from "./siwx-info";

/** The longest SIWE message we hand a wallet: every field of the challenge is bounded. */
export const MAX_SIGN_IN_MESSAGE_CHARS = 4096;

export const SignInRequest = z.object({
  /** Exactly what the wallet signs (EIP-191 personal_sign); costs nothing and moves no money. */
  message: z.string().min(1).max(MAX_SIGN_IN_MESSAGE_CHARS),
  /** The service's challenge, completed with the chain: sent back with the signature. */
  challenge: CompleteSiwxInfo,
  /** Unix seconds after which the service no longer takes the sign-in. */
  expiresAt: z.number().int().positive(),
  /** HMAC of wallet, request and challenge: the server takes the signature back only for them. */
  binding: z.string().regex(/^[0-9a-f]{64}$/),
});
export type SignInRequest = z.infer<typeof SignInRequest>;

/** How a `delivered` resource was obtained without a payment. */
export const AccessKind = z.enum(["sign-in-with-x"]);
export type AccessKind = z.infer<typeof AccessKind>;
