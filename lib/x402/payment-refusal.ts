/**
 * Why a service says it refused a payment it was sent. x402 v2 carries a refused verification
 * in the `PAYMENT-REQUIRED` header's `error` field (the official resource server fills it from
 * the facilitator's `invalidReason`), x402 v1 in the JSON body's `error`, and a failed settlement
 * in the `PAYMENT-RESPONSE` (v1 `X-PAYMENT-RESPONSE`) header's `errorReason`.
 *
 * All of it is the service's word, unverified: it explains why the agent waits, it never ends
 * the wait (a service that said "refused" may still settle the signature it holds).
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { z } from "zod";
import { readCappedBody, type ByteStream } from "../net/read-capped-body";
import { decodeSettlementHeader } from "./read-settlement";

/** The most of a reason kept: x402 codes are far shorter; anything longer is the service's prose. */
export const MAX_REFUSAL_REASON_CHARS = 300;
/** A `PAYMENT-REQUIRED` header longer than this is not decoded (the reason is not worth it). */
export const MAX_REFUSAL_HEADER_CHARS = 32_768;
/** The most of a v1 402 body read for its `error`: a real one is a few hundred bytes. */
export const MAX_REFUSAL_BODY_BYTES = 16_384;

export type PaymentRefusal = {
  /** "verification": refused before any settlement; "settlement": settling it failed. */
  stage: "verification" | "settlement";
  /** The service's reason, trimmed and bounded; undefined when it gave none. */
  reason: string | undefined;
};

/** A reason as a service sent it: kept only when it is a non-empty string, cut to the bound. */
const Reason = z
  .string()
  .transform((text) => text.trim().slice(0, MAX_REFUSAL_REASON_CHARS))
  .pipe(z.string().min(1))
  .optional()
  .catch(undefined);

const WithError = z.looseObject({ error: Reason });
const V1Body = z.looseObject({ x402Version: z.literal(1), error: Reason });
const FailedSettlement = z.looseObject({ success: z.literal(false), errorReason: Reason });

/**
 * The refusal a paid request's answer describes, or undefined when it describes none. A failed
 * settlement is read first: when a service reports one, the payment got past verification.
 *
 * @example
 * readPaymentRefusal(response.headers, body); // { stage: "verification", reason: "invalid_exact_evm_signature" }
 */
export function readPaymentRefusal(headers: Headers, body: unknown): PaymentRefusal | undefined {
  return paymentRefusalOf({ settlement: decodeSettlementHeader(headers), paymentRequired: decodeRequiredHeader(headers), body });
}

/**
 * The refusal in an answer's parts as a transport hands them over, decoded: its settlement,
 * the v2 payment request it sent again, and a v1 JSON body.
 */
export function paymentRefusalOf(answer: { settlement: unknown; paymentRequired?: unknown; body?: unknown }): PaymentRefusal | undefined {
  const settlement = FailedSettlement.safeParse(answer.settlement);
  if (settlement.success) return { stage: "settlement", reason: settlement.data.errorReason };
  const fromHeader = WithError.safeParse(answer.paymentRequired);
  if (fromHeader.success && fromHeader.data.error) return { stage: "verification", reason: fromHeader.data.error };
  const fromBody = V1Body.safeParse(answer.body);
  if (fromBody.success && fromBody.data.error) return { stage: "verification", reason: fromBody.data.error };
  return undefined;
}

/**
 * The refusal a paid request's answer describes, reading its body only when a v1 JSON body is
 * all that could say why (a 402 with neither header), and then at most MAX_REFUSAL_BODY_BYTES.
 * Consumes the body in that case.
 */
export async function readResponseRefusal(response: Response): Promise<PaymentRefusal | undefined> {
  const fromHeaders = readPaymentRefusal(response.headers, undefined);
  if (fromHeaders || !refusalMayBeInBody(response)) return fromHeaders;
  return readPaymentRefusal(response.headers, await readJsonBody(response));
}

function refusalMayBeInBody(response: Response): boolean {
  if (response.status !== 402 || response.headers.has("PAYMENT-REQUIRED")) return false;
  return (response.headers.get("content-type") ?? "").toLowerCase().includes("json");
}

async function readJsonBody(response: Response): Promise<unknown> {
  try {
    // The DOM's stream type and the reader's structural one differ only in overloads.
    const bytes = await readCappedBody(response.body as ByteStream | null, MAX_REFUSAL_BODY_BYTES);
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

function decodeRequiredHeader(headers: Headers): unknown {
  const header = headers.get("PAYMENT-REQUIRED");
  if (!header || header.length > MAX_REFUSAL_HEADER_CHARS) return undefined;
  try {
    return decodePaymentRequiredHeader(header);
  } catch {
    return undefined;
  }
}
