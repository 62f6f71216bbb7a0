/**
 * x402 over MCP, as a client reads it (specs/transports-v2/mcp.md): the payment request a tool
 * result carries, and the settlement a paid result reports.
 *
 * A payment request is a tool result with `isError: true` holding a `PaymentRequired`, looked
 * for in the spec's order: `structuredContent` itself, then `structuredContent["x402/error"].data`,
 * then `content[0].text` parsed as JSON (a `PaymentRequired`, or the `x402/error` wrapper around
 * one). The spec asks servers for the text copy and recommends the structured one; when a
 * result carries both and they differ, nothing says which to trust, so neither is: the request
 * is refused as conflicting rather than paid on one copy's word.
 *
 * The settlement is `_meta["x402/payment-response"]`; a failed settlement may instead come back
 * inside the payment request repeated (`x402/payment-response` beside its `accepts`).
 */
import { z } from "zod";
import { withinJsonLimits } from "../json-limits";

export const MCP_PAYMENT_META_KEY = "x402/payment";
export const MCP_PAYMENT_RESPONSE_META_KEY = "x402/payment-response";
export const MCP_ERROR_KEY = "x402/error";

/** Longer text is not parsed for a payment request (a real one is a few kilobytes). */
export const MAX_PAYMENT_REQUEST_TEXT_CHARS = 65_536;
const LIMITS = { maxDepth: 12, maxNodes: 2_048, maxStringChars: 8_192 } as const;

/** The part of a `CallToolResult` read here; everything else passes through unread. */
export const ToolResult = z.looseObject({
  isError: z.boolean().optional().catch(undefined),
  content: z.array(z.unknown()).optional().catch(undefined),
  structuredContent: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).optional().catch(undefined),
});
export type ToolResult = z.infer<typeof ToolResult>;

const TextItem = z.looseObject({ type: z.literal("text"), text: z.string() });
/** What makes an object a PaymentRequired for this reading; the purchase checks the rest. */
const PaymentRequiredShape = z.looseObject({ x402Version: z.number().int(), accepts: z.array(z.unknown()) });
const ErrorWrapper = z.looseObject({ [MCP_ERROR_KEY]: z.looseObject({ code: z.number().optional(), data: z.unknown() }) });

export type ToolPaymentRequest =
  /** An ordinary result: the tool answered (or failed) without asking for payment. */
  | { kind: "none" }
  | { kind: "payment-required"; paymentRequired: Record<string, unknown>; from: "structuredContent" | "text" }
  /** Both copies are present and say different things. */
  | { kind: "conflict" };

/** The payment request a tool result carries, if any. */
export function readToolPaymentRequest(result: unknown): ToolPaymentRequest {
  const parsed = ToolResult.safeParse(result);
  // Only an error result asks for payment: a tool's ordinary data may well look like x402 JSON.
  if (!parsed.success || parsed.data.isError !== true) return { kind: "none" };
  const structured = fromStructured(parsed.data.structuredContent);
  const text = fromText(parsed.data.content);
  if (structured && text && canonical(structured) !== canonical(text)) return { kind: "conflict" };
  if (structured) return { kind: "payment-required", paymentRequired: structured, from: "structuredContent" };
  if (text) return { kind: "payment-required", paymentRequired: text, from: "text" };
  return { kind: "none" };
}

function fromStructured(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || !withinJsonLimits(value, LIMITS)) return undefined;
  const direct = PaymentRequiredShape.safeParse(value);
  if (direct.success) return direct.data;
  const wrapped = ErrorWrapper.safeParse(value);
  const data = wrapped.success ? PaymentRequiredShape.safeParse(wrapped.data[MCP_ERROR_KEY].data) : undefined;
  return data?.success ? data.data : undefined;
}

function fromText(content: unknown[] | undefined): Record<string, unknown> | undefined {
  const first = TextItem.safeParse(content?.[0]);
  if (!first.success || first.data.text.length > MAX_PAYMENT_REQUEST_TEXT_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(first.data.text);
  } catch {
    return undefined;
  }
  return fromStructured(value);
}

/** The settlement a paid tool result reports (unchecked: read-settlement's schema checks it), if any. */
export function readToolSettlement(result: unknown): unknown {
  const parsed = ToolResult.safeParse(result);
  if (!parsed.success) return undefined;
  const fromMeta = parsed.data._meta?.[MCP_PAYMENT_RESPONSE_META_KEY];
  if (fromMeta !== undefined) return fromMeta;
  const request = readToolPaymentRequest(result);
  return request.kind === "payment-required" ? request.paymentRequired[MCP_PAYMENT_RESPONSE_META_KEY] : undefined;
}

/** JSON with object keys sorted, so two copies compare by content and not by key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, current: unknown) =>
    current !== null && typeof current === "object" && !Array.isArray(current)
      ? Object.fromEntries(Object.entries(current as Record<string, unknown>).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)))
      : current,
  );
}
