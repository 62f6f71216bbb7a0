/**
 * A purchase made outside the model's own tool call (an approved payment, a go-ahead, a
 * sign-in) written into the conversation as the tool call and result the model would have made,
 * so that it answers with the data.
 */
import type { JSONValue, ModelMessage } from "ai";
import type { BodyType } from "../x402/input-contract";
import { bodyTypeOf } from "../x402/request-body";
import { describeOutcome } from "./describe-outcome";
import { CALL_PAID_SERVICE_TOOL } from "./tools/call-paid-service-tool";

/** The call an approval, a go-ahead or a sign-in stands for, as the model would have made it. */
export function callInput(call: { url: string; method: string; body?: string; contentType?: string }): Record<string, unknown> {
  return { url: call.url, method: call.method, ...(call.body === undefined ? {} : bodyInput(call.body, call.contentType)) };
}

/**
 * The model continues as if it had made the call itself, so it answers with the data: the
 * call and its outcome go into the conversation before the first step.
 */
export function pushToolExchange(
  messages: ModelMessage[],
  toolCallId: string,
  call: Record<string, unknown>,
  outcome: Parameters<typeof describeOutcome>[0],
): void {
  messages.push(
    { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: CALL_PAID_SERVICE_TOOL, input: call }] },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId, toolName: CALL_PAID_SERVICE_TOOL, output: { type: "json", value: describeOutcome(outcome) as JSONValue } }],
    },
  );
}

/** The body as the tool call's input would give it: JSON or form fields, or text, with its type. */
function bodyInput(body: string, contentType: string | undefined): { body: unknown; bodyType: BodyType } {
  const bodyType = bodyTypeOf(contentType) ?? "json";
  if (bodyType === "form-data") return { body: Object.fromEntries(new URLSearchParams(body)), bodyType };
  return { body: bodyType === "json" ? parseBody(body) : body, bodyType };
}

/** A JSON body as the object it was, or as text when it does not parse. */
function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}
