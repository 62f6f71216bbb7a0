/**
 * The `PAYMENT-SIGNATURE` request header of the two-request approval flow (docs/decisions.md):
 * base64 of a JSON x402 payment payload built from the frozen quote and the user's EIP-712
 * signature. Browser-safe; the browser encodes it, the server decodes it.
 */
import { z } from "zod";
import { Address, MAX_APPROVAL_BODY_CHARS, type ApprovalRequest } from "../stream/events";
import { withinJsonLimits } from "./json-limits";
import { RequestContentType } from "./request-body";

export const PAYMENT_SIGNATURE_HEADER = "PAYMENT-SIGNATURE";
/**
 * The person's go-ahead for a payment the agent wallet would make to a URL of unknown origin:
 * the confirmation token of the `p:` event, sent back unchanged with the same request.
 */
export const PAYMENT_APPROVAL_HEADER = "PAYMENT-APPROVAL";
/** Headers of this size or more are refused before decoding. */
export const MAX_PAYMENT_SIGNATURE_HEADER_CHARS = 16_384;

const decimalInteger = z.string().regex(/^\d{1,78}$/);

export const TransferAuthorization = z.strictObject({
  from: Address,
  to: Address,
  value: decimalInteger,
  validAfter: decimalInteger,
  validBefore: decimalInteger,
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
});
export type TransferAuthorization = z.infer<typeof TransferAuthorization>;

export const PaymentSignaturePayload = z.strictObject({
  x402Version: z.number().int().min(1).max(2),
  resource: z.strictObject({
    url: z.string().max(2048),
    method: z.string().max(16),
    body: z.string().max(MAX_APPROVAL_BODY_CHARS).optional(),
    contentType: RequestContentType.optional(),
  }),
  accepted: z.record(z.string(), z.unknown()),
  payload: z.strictObject({
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/).max(1024),
    authorization: TransferAuthorization,
  }),
});
export type PaymentSignaturePayload = z.infer<typeof PaymentSignaturePayload>;

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): string {
  const binary = atob(text);
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/**
 * Builds the header value once the wallet has signed `approval.typedData`. The body and its
 * content type go back exactly as approved: the server sends them, and the nonce covers both.
 */
export function encodePaymentSignatureHeader(approval: ApprovalRequest, signature: `0x${string}`): string {
  const resource: PaymentSignaturePayload["resource"] = { url: approval.resource, method: approval.method };
  if (approval.body !== undefined) resource.body = approval.body;
  if (approval.contentType !== undefined) resource.contentType = approval.contentType;
  const payload: PaymentSignaturePayload = {
    x402Version: approval.x402Version,
    resource,
    accepted: approval.requirements,
    payload: { signature, authorization: approval.typedData.message as TransferAuthorization },
  };
  return toBase64(JSON.stringify(payload));
}

/** Decodes and validates a header value; `undefined` when it is not a well-formed payload. */
export function decodePaymentSignatureHeader(value: string): PaymentSignaturePayload | undefined {
  if (value.length >= MAX_PAYMENT_SIGNATURE_HEADER_CHARS || !/^[A-Za-z0-9+/=\s]+$/.test(value)) return undefined;
  try {
    const result = PaymentSignaturePayload.safeParse(JSON.parse(fromBase64(value.trim())));
    // The accepted requirements are hashed into the quote's nonce: bounded like a 402's.
    return result.success && withinJsonLimits(result.data.accepted) ? result.data : undefined;
  } catch {
    return undefined;
  }
}

