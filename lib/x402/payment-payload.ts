/**
 * The payment payload this agent sends, in the official SDK's types: x402 v2 as `@x402/core`'s
 * `PaymentPayload`, handed to its header encoder as it is; v1 in the v1 shape (`scheme`,
 * `network`, `payload`), which names its network the v1 way and so is not the SDK's v2 type.
 * The accepted requirement is echoed exactly as the service sent it: the check below reads it
 * against the SDK's shape and hands on the same object, never a parsed copy.
 */
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { z } from "zod";
import type { PayableRequirement } from "./schemes/payable-option";

/** A v1 payload: the scheme and the network named beside the scheme's payload. */
export type PaymentPayloadV1 = { x402Version: 1; scheme: string; network: string; payload: Record<string, unknown> };

/** What a scheme builds and a transport sends. */
export type OutgoingPaymentPayload = PaymentPayload | PaymentPayloadV1;

/** The SDK's `PaymentRequirements`, checked by zod: the schema's type is held to the SDK's at compile time. */
const SdkRequirements: z.ZodType<PaymentRequirements> = z.looseObject({
  scheme: z.string(),
  network: z.templateLiteral([z.string(), ":", z.string()]),
  asset: z.string(),
  amount: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number(),
  extra: z.record(z.string(), z.unknown()),
});

function isSdkRequirements(value: unknown): value is PaymentRequirements {
  return SdkRequirements.safeParse(value).success;
}

/**
 * A v2 option's requirement, as the payload's `accepted` echoes it (the same object). Every
 * option an offer reader read in v2 is one (its network is CAIP-2); anything else is refused here.
 */
export function acceptedRequirementsOf(option: PayableRequirement): PaymentRequirements {
  const { requirements } = option;
  if (!isSdkRequirements(requirements)) throw new TypeError("an x402 v2 option whose requirement is not in the protocol's shape");
  return requirements;
}

/** An option of a payment request in the protocol's shape (the same object), else undefined. */
export function sdkRequirementsOf(value: unknown): PaymentRequirements | undefined {
  return isSdkRequirements(value) ? value : undefined;
}

/** The request header that carries a payload: `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1), base64 of its JSON. */
export function paymentHeaderOf(payload: OutgoingPaymentPayload): { header: string; value: string } {
  // A v2 payload echoes the requirement it accepts; a v1 payload names scheme and network instead.
  if ("accepted" in payload) return { header: "PAYMENT-SIGNATURE", value: encodePaymentSignatureHeader(payload) };
  return { header: "X-PAYMENT", value: base64Json(payload) };
}

/** v1's header is base64 of the payload's JSON, as the SDK's encoder writes it. */
function base64Json(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
