import "server-only";
/**
 * `ask_agent`: one turn of the chat's agent (discover, decide, pay, answer), run by the same
 * code as `POST /api/chat` (startChatRun, with the offline demo model when no model key is
 * set), paid by the agent wallet within the caller's limits. Its text, payments and errors are
 * heard as events (run-listener.ts: checked by the stream's schemas and ordering rules, never
 * encoded to bytes); its payment progress goes out as MCP progress as it happens.
 */
import { startChatRun } from "../../agent/run-chat";
import { CheckedRunListener } from "../../agent/run-listener";
import { unlistedCallsOf } from "../../doors/unlisted-calls";
import { inspectMessages } from "../../safety/content-safety";
import { limitsOf, requestKeyOf } from "../call-scope";
import { SECRET_REFUSAL } from "../content-check";
import type { McpContext, McpToolCall } from "../mcp-context";
import type { AskAgentInput } from "../schemas";
import { toolResult } from "../tool-result";

export const ASK_AGENT = {
  name: "ask_agent",
  title: "Ask the payment agent",
  description:
    "Give the x402 payment agent one request in plain words (e.g. 'Buy the weather in Tokyo'): it finds a paid service, pays for it from the agent wallet within this caller's spending limits when that answers the request, and replies. Returns its answer and every payment it made (amount, status, transaction hash). May spend money: pass an idempotencyKey to make a retry safe (the same key buys the same thing at most once).",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
} as const;

export async function askAgent(context: McpContext, input: AskAgentInput, call: McpToolCall) {
  const { deps } = context;
  // Unsafe content is refused before it is logged, stored or sent to a model, as in the chat.
  const safety = inspectMessages([{ role: "user" as const, content: input.prompt }]);
  if (!safety.safe) return toolResult({ status: "refused", message: SECRET_REFUSAL }, { isError: true });
  const heard = new CheckedRunListener((event) => {
    if (event.type === "payment") call.progress(event.payment);
  });
  const run = startChatRun(
    deps,
    {
      messages: safety.messages,
      walletAddress: context.grant?.walletAddress,
      grantPayer: context.grant?.payer,
      limits: limitsOf(context, input.spendingLimits).limits,
      requestKey: requestKeyOf(context, "ask", { idempotencyKey: input.idempotencyKey, requestId: call.requestId }),
      arrivedAt: context.arrivedAt,
      unlisted: unlistedCallsOf(deps, context.caller, context.clientKey),
    },
    heard,
  );
  const stop = () => run.abort(new Error("the MCP call was cancelled"));
  if (call.signal.aborted) stop();
  else call.signal.addEventListener("abort", stop, { once: true });
  try {
    await run.done;
  } finally {
    call.signal.removeEventListener("abort", stop);
  }
  const text = heard.events.map((event) => (event.type === "text" ? event.text : "")).join("");
  const errors = heard.events.flatMap((event) => (event.type === "error" ? [event.error] : []));
  const finish = heard.events.flatMap((event) => (event.type === "finish" ? [event.finish] : [])).at(-1);
  return toolResult(
    {
      text,
      finishReason: finish?.finishReason ?? "stop",
      txHash: finish?.txHash ?? null,
      payments: finish?.payments ?? [],
      ...(errors.length > 0 ? { errors } : {}),
      ...(finish?.model ? { model: finish.model } : {}),
    },
    { isError: errors.length > 0 && text.trim() === "" },
  );
}
