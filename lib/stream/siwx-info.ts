/**
 * The x402 `sign-in-with-x` challenge (`specs/extensions/sign-in-with-x.md`), as far as an
 * EIP-4361 message signs it. Here, with the stream's schemas, because the stream carries a
 * completed challenge to the browser (sign-in-request.ts); lib/x402/siwx-challenge.ts reads
 * it from a service's 402. Zod only: the browser bundles it.
 */
import { z } from "zod";

/** One line of the signed message: no line breaks, bounded. */
const line = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\r\n\u2028\u2029]*$/);
const time = z.iso.datetime({ offset: true });
const url = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/ }));

/**
 * Every nonce this app hands out for its own sign-in (`GET /api/auth/nonce`) begins with this.
 * A service's challenge carrying such a nonce is a service trying to have a wallet sign this
 * app's login, so it is refused by this rule, not by the accident that the nonces' lengths
 * differ.
 */
export const APP_SIGN_IN_NONCE_PREFIX = "x402AgentSignIn";

/** The spec's `info`, as far as EIP-4361 signs it; unknown fields are dropped, never signed. */
export const SiwxInfo = z.object({
  domain: line(253),
  uri: url,
  version: z.literal("1"),
  // EIP-4361: at least 8 alphanumeric characters; the spec's are 32 hex.
  nonce: z
    .string()
    .regex(/^[A-Za-z0-9]{8,64}$/)
    .refine((nonce) => !nonce.toLowerCase().startsWith(APP_SIGN_IN_NONCE_PREFIX.toLowerCase()), "is a nonce of this app's own sign-in"),
  issuedAt: time,
  expirationTime: time.optional(),
  notBefore: time.optional(),
  statement: line(280).optional(),
  requestId: line(128).optional(),
  resources: z.array(url).max(8).optional(),
});
export type SiwxInfo = z.infer<typeof SiwxInfo>;

/** A challenge completed with the chain it is signed for: what a wallet signs (EVM only here). */
export const CompleteSiwxInfo = SiwxInfo.extend({ chainId: z.string().regex(/^eip155:\d{1,12}$/), type: z.literal("eip191") });
