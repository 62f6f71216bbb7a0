import "server-only";
/**
 * The MCP binding of a purchase's two requests. The purchase steps (run-purchase.ts and
 * pay-and-deliver.ts: quote, limits, reservation, journal, signing, sending, proving) speak
 * x402's HTTP terms through the one outbound function they are given: an unpaid request is
 * answered 402 with a `PAYMENT-REQUIRED` header, a paid one carries `PAYMENT-SIGNATURE` and is
 * answered with a `PAYMENT-RESPONSE` header. For an MCP tool this module is that function:
 *
 * - the unpaid request is the `tools/call` already made, its payment request (read from the
 *   tool result) answered again as a 402, once;
 * - the paid request is `tools/call` again, with the decoded payment in `_meta["x402/payment"]`;
 *   its result becomes the answer: `_meta["x402/payment-response"]` as `PAYMENT-RESPONSE`, a
 *   delivered result as 200 with its content, an error result as 500, a payment request again
 *   (refused verification or settlement) as 402 with it.
 *
 * So an MCP purchase runs exactly the same steps, with the same proofs, as an HTTP one; only the
 * words of an after-payment failure are MCP's own (`describeAnswer`).
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { describeServiceText } from "../../x402/service-text";
import { MCP_PAYMENT_META_KEY, readToolPaymentRequest, readToolSettlement, ToolResult } from "../../x402/mcp-payment-request";
import type { McpConnection } from "./mcp-connection";
import type { AskWithoutPaying, OutboundFetch } from "./purchase-types";
import { parsePaymentRequired } from "../../x402/payment-requirements";

/** MCP defines no sign-in binding: a payment request's sign-in-with-x offer is not taken up over MCP. */
const NOT_OVER_MCP = ["sign-in-with-x"];

export type McpExchange = {
  /** Stage 1 over MCP: the tool was asked already, its payment request is handed over as it is. */
  ask: AskWithoutPaying;
  fetch: OutboundFetch;
  /** The sentence that says what an answer of this exchange was, for a paid call that delivered nothing. */
  describeAnswer(response: Response): string | undefined;
};

export function createMcpExchange(
  connection: McpConnection,
  call: { toolName: string; arguments: Record<string, unknown>; paymentRequired: Record<string, unknown>; timeoutMs: () => number },
): McpExchange {
  const descriptions = new WeakMap<Response, string>();
  const describe = (response: Response, words: string) => {
    descriptions.set(response, words);
    return response;
  };
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
    async fetch(_url, init) {
      const headers = new Headers(init?.headers);
      const proof = headers.get("PAYMENT-SIGNATURE") ?? headers.get("X-PAYMENT");
      // Without a payment: the ask. The tool was asked already; its payment request is the answer.
      if (!proof) return paymentRequiredAnswer(call.paymentRequired);
      const payload = decodePaymentSignatureHeader(proof);
      let result: unknown;
      try {
        result = await connection.callTool(call.toolName, call.arguments, {
          meta: { [MCP_PAYMENT_META_KEY]: payload },
          signal: init?.signal ?? undefined,
          timeoutMs: call.timeoutMs(),
        });
      } catch (error) {
        throw asTransportFailure(error);
      }
      return answerOf(result, call.toolName, describe);
    },
    describeAnswer: (response) => descriptions.get(response),
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

/** A payment request as the purchase reads one: a 402 with the v2 header (or a v1 JSON body). */
export function paymentRequiredAnswer(paymentRequired: Record<string, unknown>): Response {
  const kept = withoutHttpOnlyOffers(paymentRequired);
  const headers = new Headers({ "content-type": "application/json" });
  if (kept.x402Version === 2)
    headers.set("PAYMENT-REQUIRED", encodePaymentRequiredHeader(kept as unknown as Parameters<typeof encodePaymentRequiredHeader>[0]));
  return new Response(JSON.stringify(kept), { status: 402, headers });
}

/** The payment request without the offers MCP has no binding for. */
function withoutHttpOnlyOffers(paymentRequired: Record<string, unknown>): Record<string, unknown> {
  const extensions = paymentRequired.extensions;
  return extensions !== null && typeof extensions === "object" && !Array.isArray(extensions)
    ? { ...paymentRequired, extensions: Object.fromEntries(Object.entries(extensions).filter(([key]) => !NOT_OVER_MCP.includes(key))) }
    : paymentRequired;
}

/** The paid call's result as an answer to the payment. */
function answerOf(result: unknown, toolName: string, describe: (response: Response, words: string) => Response): Response {
  const headers = new Headers();
  const settlement = readToolSettlement(result);
  if (settlement !== null && typeof settlement === "object" && !Array.isArray(settlement)) {
    headers.set("PAYMENT-RESPONSE", encodePaymentResponseHeader(settlement as Parameters<typeof encodePaymentResponseHeader>[0]));
  }
  const request = readToolPaymentRequest(result);
  if (request.kind === "payment-required") {
    // Refused (verification or settlement): the service's reason travels as an HTTP 402's would.
    if (request.paymentRequired.x402Version === 2)
      headers.set("PAYMENT-REQUIRED", encodePaymentRequiredHeader(request.paymentRequired as unknown as Parameters<typeof encodePaymentRequiredHeader>[0]));
    return describe(new Response(null, { status: 402, headers }), `${toolName} answered the payment with a new payment request.`);
  }
  if (request.kind === "conflict")
    return describe(new Response(null, { status: 402, headers }), `${toolName} answered the payment with two payment requests that disagree.`);
  const parsed = ToolResult.safeParse(result);
  if (!parsed.success)
    return describe(new Response(null, { status: 502, headers }), `${toolName} answered the payment with something that is not an MCP tool result.`);
  const body = toolResultBody(parsed.data);
  headers.set("content-type", body.contentType);
  if (parsed.data.isError) {
    return describe(
      new Response(null, { status: 500, headers }),
      `${toolName} returned an error result after receiving the payment ${describeServiceText("error", body.text)}.`,
    );
  }
  return new Response(body.text, { status: 200, headers });
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
