/**
 * What the stream says about a service's signed receipt (the x402 `offer-receipt` extension):
 * who signed it and whether the agent could verify it, never the receipt itself (the journal
 * keeps that). Small on purpose: it rides on a `p:` event and on every `d:` payment, and the
 * browser bundles this schema.
 */
import { z } from "zod";
import { Address as EvmAddress } from "./wire-primitives";

export const PaymentReceipt = z.object({
  /** The receipt's signature format; null when the service named neither of the spec's two. */
  format: z.enum(["eip712", "jws"]).nullable(),
  /** The address whose key signed it; null when none could be recovered. */
  signer: EvmAddress.nullable(),
  /** True only when the signature holds, the signer is the payee and the fields match the payment. */
  verified: z.boolean(),
  /** Why it is not verified, for a person. */
  reason: z.string().max(200).optional(),
  /** Unix seconds, as the receipt says it was issued. */
  issuedAt: z.number().int().nonnegative().optional(),
  /** The settlement the receipt names (a service may leave it out, for privacy). */
  transaction: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .optional(),
});
export type PaymentReceipt = z.infer<typeof PaymentReceipt>;
