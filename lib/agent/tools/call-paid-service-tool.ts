import "server-only";
import { tool, zodSchema } from "ai";
import { z } from "zod";
import type { AgentRun } from "../agent-run";
import { CALL_METHODS } from "../../x402/input-contract";
import { BODY_TYPES, MAX_REQUEST_BODY_CHARS } from "../../x402/request-body";
import { tooManyCalls } from "./too-many-calls";
import { describeOutcome } from "../describe-outcome";

export const CALL_PAID_SERVICE_TOOL = "call_paid_service";

// Wrapped once per process: the AI SDK turns a schema into JSON Schema for every model step,
// and caches the result only on a wrapped schema, so a bare zod object would be converted
// again at every step of every turn.
const CALL_INPUT = zodSchema(
  z.object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe("The service's resource URL with query parameters"),
    method: z.enum(CALL_METHODS).default("GET"),
    body: z
      .union([z.looseObject({}), z.string().max(MAX_REQUEST_BODY_CHARS)])
      .optional()
      .describe("The body, for services whose usage names one: an object of fields (JSON or form-data), or a string (text)"),
    bodyType: z
      .enum(BODY_TYPES)
      .optional()
      .describe("How the body is sent: json, form-data (URL-encoded fields) or text. Leave it out to send it as the service declared."),
  }),
);

/**
 * Calls a paid service and pays for it within the user's limits. The model chooses what to
 * buy; the code decides whether and how much may be paid.
 */
export function createCallPaidServiceTool(run: AgentRun) {
  return tool({
    description:
      "Call a paid x402 HTTP service found with discover_services (or given by the user), paying in USDC within the user's spending limits, and return its data. Call it as the service's usage from discover_services says: query parameters in the URL's query string, path parameters in its path, and for POST the body it names (an object of fields for a JSON or form-data body, a string for a text body). Payment limits, payee and amount are enforced by the system, not by you.",
    inputSchema: CALL_INPUT,
    execute: async ({ url, method, body, bodyType }, { toolCallId, abortSignal }) => {
      const key = body === undefined ? "" : `${bodyType ?? ""}:${JSON.stringify(body)}`;
      if (!run.admitToolCall(`call:${method}:${url}:${key}`)) return tooManyCalls();
      const outcome = await run.purchase({
        url,
        method,
        body: body === undefined ? undefined : { value: body, type: bodyType },
        intent: toolCallId,
        signal: abortSignal,
      });
      return describeOutcome(outcome);
    },
  });
}
