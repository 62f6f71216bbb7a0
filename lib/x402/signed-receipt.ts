/**
 * A receipt of the x402 `offer-receipt` extension as it travels (spec §3.1, §5.2), read with
 * bounds: it is a stranger's text, kept in the journal as evidence, so nothing unbounded gets in.
 * Unknown fields are dropped, which leaves the signed ones: the EIP-712 struct covers exactly
 * those (§5.3), so dropping the rest changes nothing a signature proves.
 */
import { z } from "zod";

/** The receipt payload (§5.2), as signed. */
export const ReceiptPayload = z.object({
  version: z.number().int().nonnegative(),
  network: z.string().min(1).max(128),
  resourceUrl: z.string().min(1).max(2048),
  payer: z.string().min(1).max(128),
  /** Unix seconds; 2^40 is some 35 000 years out, well inside a safe integer. */
  issuedAt: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 40),
  /**
   * Optional in the payload; EIP-712's fixed struct signs an unused one as "" (§5.3), so an
   * absent one is read as "" rather than refused.
   */
  transaction: z.string().max(128).default(""),
});
export type ReceiptPayload = z.infer<typeof ReceiptPayload>;

/** `format: "eip712"`: the payload travels beside a 65-byte r‖s‖v signature (§3.1.1). */
export const Eip712SignedReceipt = z.object({
  format: z.literal("eip712"),
  payload: ReceiptPayload,
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, "expected a 65-byte hex signature"),
});

/** `format: "jws"`: one compact JWS holds header, payload and signature (§3.1.1, §3.3). */
export const JwsSignedReceipt = z.object({
  format: z.literal("jws"),
  signature: z
    .string()
    .max(8192)
    .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, "expected a compact JWS"),
});

export const SignedReceipt = z.discriminatedUnion("format", [Eip712SignedReceipt, JwsSignedReceipt]);
export type SignedReceipt = z.infer<typeof SignedReceipt>;
