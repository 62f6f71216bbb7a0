/**
 * The `PAYMENT-SIGNATURE` request header of the two-request approval flow (docs/decisions.md):
 * base64 of a JSON x402 payment payload built from the frozen quote and the user's EIP-712
 * signature. Browser-safe; the browser encodes it, the server decodes it.
 */
import { z } from "zod";
import { Address, MAX_APPROVAL_BODY_CHARS, type ApprovalRequest } from "../stream/events";
import { EchoedExtensions, EchoedResourceInfo } from "../stream/extension-echo-bounds";
import { withinJsonLimits } from "../json-limits";
import { RequestContentType } from "./request-body";

export const PAYMENT_SIGNATURE_HEADER = "PAYMENT-SIGNATURE";
/**
 * The person's go-ahead for a payment the agent wallet would make to a URL of unknown origin:
 * the confirmation token of the `p:` event, sent back unchanged with the same request.
 */
export const PAYMENT_APPROVAL_HEADER = "PAYMENT-APPROVAL";
/** Headers of this size or more are refused before decoding. */
export const MAX_PAYMENT_SIGNATURE_HEADER_CHARS = 16_384;

/** The longest signature taken (a smart wallet's runs longer than an EOA's 132 characters). */
const MAX_SIGNATURE_CHARS = 1024;

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

/**
 * A signed `upto` permit's terms, in the shape x402's upto payload names `permit2Authorization`:
 * the owner (`from`) beside the Permit2 typed data's message, integers as decimal strings.
 */
export const Permit2Authorization = z.strictObject({
  from: Address,
  permitted: z.strictObject({ token: Address, amount: decimalInteger }),
  spender: Address,
  nonce: decimalInteger,
  deadline: decimalInteger,
  witness: z.strictObject({ to: Address, facilitator: Address, validAfter: decimalInteger }),
});
export type Permit2Authorization = z.infer<typeof Permit2Authorization>;

/** Which of the two an authorization is. */
export function isPermit2Authorization(authorization: TransferAuthorization | Permit2Authorization): authorization is Permit2Authorization {
  return "permitted" in authorization;
}

export const PaymentSignaturePayload = z.strictObject({
  x402Version: z.number().int().min(1).max(2),
  resource: z.strictObject({
    url: z.string().max(2048),
    method: z.string().max(16),
    body: z.string().max(MAX_APPROVAL_BODY_CHARS).optional(),
    contentType: RequestContentType.optional(),
    /** The 402's resource description and MIME type, back unchanged: covered by the nonce too. */
    info: EchoedResourceInfo.optional(),
  }),
  accepted: z.record(z.string(), z.unknown()),
  payload: z.strictObject({
    signature: z
      .string()
      .regex(/^0x[0-9a-fA-F]+$/)
      .max(MAX_SIGNATURE_CHARS),
    /** `exact`: the EIP-3009 authorization; `upto`: the Permit2 permit with its owner. */
    authorization: z.union([TransferAuthorization, Permit2Authorization]),
  }),
  /** The approval's extensions, back unchanged: the nonce covers them, and the service is sent them. */
  extensions: EchoedExtensions.optional(),
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
 * Builds the header value once the wallet has signed `approval.typedData`. The body, its
 * content type and the extensions go back exactly as approved: the server sends them, and the
 * nonce covers them all.
 */
export function encodePaymentSignatureHeader(approval: ApprovalRequest, signature: `0x${string}`): string {
  const resource: PaymentSignaturePayload["resource"] = { url: approval.resource, method: approval.method };
  if (approval.body !== undefined) resource.body = approval.body;
  if (approval.contentType !== undefined) resource.contentType = approval.contentType;
  if (approval.resourceInfo !== undefined) resource.info = approval.resourceInfo;
  const payload: PaymentSignaturePayload = {
    x402Version: approval.x402Version,
    resource,
    accepted: approval.requirements,
    payload: { signature, authorization: authorizationOf(approval) },
    ...(approval.extensions === undefined ? {} : { extensions: approval.extensions }),
  };
  return toBase64(JSON.stringify(payload));
}

/** The signed terms as the header carries them: a permit's with the owner that signed it. */
function authorizationOf(approval: ApprovalRequest): TransferAuthorization | Permit2Authorization {
  const { typedData } = approval;
  if (typedData.primaryType === "TransferWithAuthorization") return typedData.message as TransferAuthorization;
  return { from: approval.payer ?? "", ...typedData.message };
}

/**
 * The extensions an approval can carry and still come back in a header this module accepts:
 * as they are when the header fits (signed by the longest signature taken), else the most of
 * them, in order, that fit; undefined when none do. What is returned is what the stream's
 * schema keeps of them, so the quote's nonce binds exactly what the browser will send back.
 * The nonce's value does not change the header's length: `approval` may carry any nonce.
 */
export function extensionsThatFit(
  approval: Omit<ApprovalRequest, "extensions">,
  extensions: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (extensions === undefined) return undefined;
  const longestSignature = `0x${"f".repeat(MAX_SIGNATURE_CHARS - 2)}` as const;
  const entries = Object.entries(extensions);
  for (let count = entries.length; count > 0; count -= 1) {
    const parsed = EchoedExtensions.safeParse(Object.fromEntries(entries.slice(0, count)));
    if (!parsed.success || Object.keys(parsed.data).length === 0) continue;
    if (encodePaymentSignatureHeader({ ...approval, extensions: parsed.data }, longestSignature).length < MAX_PAYMENT_SIGNATURE_HEADER_CHARS)
      return parsed.data;
  }
  return undefined;
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
