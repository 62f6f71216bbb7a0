/**
 * The approval the user's wallet is asked for (`p:` awaiting-approval): the frozen quote and the
 * typed data to sign, EIP-3009 for `exact` and a Permit2 witness for `upto`. Part of protocol v1
 * (events.ts re-exports it); kept apart because it is the largest payload of the stream.
 */
import { z } from "zod";
import { Permit2WitnessTypedData } from "./permit2-typed-data";
import { Address, hexString, RequestContentType, UsdcDecimal } from "./wire-primitives";
import { EchoedExtensions, EchoedResourceInfo } from "./extension-echo-bounds";

/**
 * EIP-712 typed data for an EIP-3009 `TransferWithAuthorization`, as a wallet signs it.
 * Integers travel as decimal strings because JSON has no bigint.
 */
export const TransferAuthorizationTypedData = z.object({
  domain: z.object({
    name: z.string(),
    version: z.string(),
    chainId: z.number().int().positive(),
    verifyingContract: Address,
  }),
  types: z.object({
    TransferWithAuthorization: z.array(z.object({ name: z.string(), type: z.string() })),
  }),
  primaryType: z.literal("TransferWithAuthorization"),
  message: z.object({
    from: Address,
    to: Address,
    value: z.string().regex(/^\d+$/),
    validAfter: z.string().regex(/^\d+$/),
    validBefore: z.string().regex(/^\d+$/),
    nonce: hexString,
  }),
});
export type TransferAuthorizationTypedData = z.infer<typeof TransferAuthorizationTypedData>;

/** The largest request body a user's wallet can approve (it travels in the PAYMENT-SIGNATURE header). */
export const MAX_APPROVAL_BODY_CHARS = 4096;

/** A frozen quote awaiting the user's signature (docs/decisions.md, "Who pays, and approval"). */
export const ApprovalRequest = z.object({
  method: z.string(),
  resource: z.string(),
  amount: UsdcDecimal,
  asset: Address,
  network: z.string(),
  payTo: Address,
  /** Unix seconds after which the quote (and any signature over it) is void. */
  expiresAt: z.number().int(),
  x402Version: z.number().int(),
  /**
   * `exact`: `amount` is the price, and `typedData` an EIP-3009 authorization for it. `upto`
   * (metered): `amount` is the ceiling, `typedData` a Permit2 witness permit for it, and the
   * service settles what it used, at most that (docs/decisions.md, "Metered payments: upto").
   */
  scheme: z.enum(["exact", "upto"]),
  /** The payment requirements exactly as the service sent them; echoed back when paying. */
  requirements: z.record(z.string(), z.unknown()),
  typedData: z.union([TransferAuthorizationTypedData, Permit2WitnessTypedData]),
  /** The wallet that must sign (a Permit2 permit names no owner in its typed data). */
  payer: Address.optional(),
  /** `upto`: the ceiling signed (the same as `amount`). */
  ceiling: UsdcDecimal.optional(),
  /** `upto`, when the 402 declared its metering: the price of one unit, and what a unit is. */
  metering: z.object({ unitPrice: UsdcDecimal, unit: z.string().max(64).optional() }).optional(),
  /**
   * `upto`, when the wallet has not yet let Permit2 move this token (or not enough): the ERC-20
   * `approve(spender, amount)` on `token` the wallet must send before its permit can settle.
   * `amount` is the allowance this payment needs (its ceiling); the wallet may allow more, never
   * less. Absent from older servers: the ceiling then.
   */
  permit2Approval: z.object({ spender: Address, token: Address, amount: UsdcDecimal.optional() }).optional(),
  /** The exact body the paid request will send (the signature covers it); echoed back when paying. */
  body: z.string().max(MAX_APPROVAL_BODY_CHARS).optional(),
  /** How `body` is sent (JSON, form or text), covered by the signature too; only with a body. */
  contentType: RequestContentType.optional(),
  /**
   * The 402's extensions the payment echoes to the service (bazaar, payment-identifier, …), frozen
   * with the quote and covered by its nonce; echoed back unchanged when paying. Bounded as every echo is.
   */
  extensions: EchoedExtensions.optional(),
  /**
   * The 402's `resource` description and MIME type (v2), echoed in the payment beside its URL as
   * the official client echoes them; covered by the nonce and sent back unchanged like the rest.
   */
  resourceInfo: EchoedResourceInfo.optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;
