import "server-only";
/**
 * The MCP transport of a purchase: its two ports, as the HTTP transport's (purchase-types.ts).
 *
 * - Ask without paying: the `tools/call` already made; its payment request (read from the tool
 *   result) is handed over as it is, read by the same schemas as an HTTP 402's.
 * - Send with payment: `tools/call` again, with the payment payload in `_meta["x402/payment"]`;
 *   its result handed over as it is: the settlement from `_meta["x402/payment-response"]`, a
 *   delivered result's content as the data, an error result as delivered nothing, and a
 *   payment request again (refused verification or settlement) as the reason it gives.
 *
 * So an MCP purchase runs exactly the same steps, with the same proofs, as an HTTP one; only the
 * words of an after-payment failure are MCP's own.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { describeServiceText } from "../../x402/service-text";
import { MCP_PAYMENT_META_KEY, readToolPaymentRequest, readToolSettlement, ToolResult } from "../../x402/mcp-payment-request";
import { paymentRefusalOf } from "../../x402/payment-refusal";
import type { McpConnection } from "./mcp-connection";
import type { AskWithoutPaying, PaidAnswer, SendWithPayment } from "./purchase-types";
import { parsePaymentRequired } from "../../x402/payment-requirements";

/** MCP defines no sign-in binding: a payment request's sign-in-with-x offer is not taken up over MCP. */
const NOT_OVER_MCP = ["sign-in-with-x"];

export type McpExchange = {
  /** Stage 1 over MCP: the tool was asked already, its payment request is handed over as it is. */
  ask: AskWithoutPaying;
  /** Stage 8 over MCP: the tool called again with the payment, its result handed over as it is. */
  send: SendWithPayment;
};

export function createMcpExchange(
  connection: McpConnection,
  call: { toolName: string; arguments: Record<string, unknown>; paymentRequired: Record<string, unknown>; timeoutMs: () => number },
): McpExchange {
  return {
    ask(request) {
      const paymentRequired = parsePaymentRequired(withoutHttpOnlyOffers(call.paymentRequired));
      if (paymentRequired) return Promise.resolve({ status: "payment-required", paymentRequired });
      return Promise.resolve({
        status: "failed",
        reason: "payment-failed",
        message: `${request.service} sent a 402 without readable x402 payment requirements.`,
      });
    },
    async send(paid) {
      let result: unknown;
      try {
        result = await connection.callTool(call.toolName, call.arguments, {
          meta: { [MCP_PAYMENT_META_KEY]: paid.payment },
          signal: paid.signal,
          timeoutMs: call.timeoutMs(),
        });
      } catch (error) {
        throw asTransportFailure(error);
      }
      return answerOf(result, call.toolName);
    },
  };
}

/**
 * The MCP client's own failures of a sent call, in the terms the purchase reads an HTTP
 * failure in: the connection closed under it, or its time bound passed. Both after the call
 * was sent, so the payment may have arrived.
 */
function asTransportFailure(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  if (error.code === ErrorCode.ConnectionClosed) return new GuardedFetchError("connection_lost", { cause: error, requestMayHaveArrived: true });
  if (error.code === ErrorCode.RequestTimeout) return new GuardedFetchError("timeout", { cause: error, requestMayHaveArrived: true });
  return error;
}

/** The payment request without the offers MCP has no binding for. */
function withoutHttpOnlyOffers(paymentRequired: Record<string, unknown>): Record<string, unknown> {
  const extensions = paymentRequired.extensions;
  return extensions !== null && typeof extensions === "object" && !Array.isArray(extensions)
    ? { ...paymentRequired, extensions: Object.fromEntries(Object.entries(extensions).filter(([key]) => !NOT_OVER_MCP.includes(key))) }
    : paymentRequired;
}

/** The paid call's result as an answer to the payment. */
export function answerOf(result: unknown, toolName: string): PaidAnswer {
  const settlement = readToolSettlement(result);
  const nothing = (description: string, paymentRequired?: unknown): PaidAnswer => ({
    delivered: false,
    content: new Response(null),
    settlement,
    refusal: () => Promise.resolve(paymentRefusalOf({ settlement, paymentRequired })),
    ...(paymentRequired === undefined ? {} : { refused: true as const, paymentRequired: parsePaymentRequired(paymentRequired) }),
    description,
  });
  const request = readToolPaymentRequest(result);
  // Refused (verification or settlement): the payment request comes again, with the service's reason.
  if (request.kind === "payment-required") return nothing(`${toolName} answered the payment with a new payment request.`, request.paymentRequired);
  if (request.kind === "conflict") return nothing(`${toolName} answered the payment with two payment requests that disagree.`);
  const parsed = ToolResult.safeParse(result);
  if (!parsed.success) return nothing(`${toolName} answered the payment with something that is not an MCP tool result.`);
  const body = toolResultBody(parsed.data);
  if (parsed.data.isError) return nothing(`${toolName} returned an error result after receiving the payment ${describeServiceText("error", body.text)}.`);
  return {
    delivered: true,
    content: new Response(body.text, { headers: { "content-type": body.contentType } }),
    settlement,
    refusal: () => Promise.resolve(paymentRefusalOf({ settlement })),
    description: `${toolName} delivered its result to the payment without a settlement.`,
  };
}

/**
 * A tool result's content as a body the purchase reads like a service's answer (service-data.ts
 * cleans and bounds it): the structured content as JSON when there is one, else the text items
 * (one JSON text stays JSON), other items named, not decoded.
 */
export function toolResultBody(result: ToolResult): { contentType: string; text: string } {
  const structured = result.structuredContent;
  if (structured !== null && typeof structured === "object") return { contentType: "application/json", text: JSON.stringify(structured) };
  const parts = (result.content ?? []).slice(0, 50).map(describeItem);
  const text = parts.join("\n");
  if (parts.length === 1) {
    try {
      JSON.parse(text);
      return { contentType: "application/json", text };
    } catch {
      // plain text
    }
  }
  return { contentType: "text/plain", text };
}

function describeItem(item: unknown): string {
  if (item === null || typeof item !== "object") return "";
  const { type, text, mimeType, uri } = item as { type?: unknown; text?: unknown; mimeType?: unknown; uri?: unknown };
  if (type === "text" && typeof text === "string") return text;
  const kind = typeof type === "string" ? type.slice(0, 20) : "unknown";
  const detail = typeof mimeType === "string" ? ` ${mimeType.slice(0, 60)}` : typeof uri === "string" ? ` ${uri.slice(0, 200)}` : "";
  return `(a ${kind}${detail} item, not shown)`;
}
