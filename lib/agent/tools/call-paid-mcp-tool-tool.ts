import "server-only";
import { createHash } from "node:crypto";
import { tool, zodSchema } from "ai";
import { z } from "zod";
import type { AgentRun } from "../agent-run";
import { MCP_TOOL_NAME } from "../../x402/mcp-listing";
import { describeOutcome } from "../describe-outcome";
import { tooManyCalls } from "./too-many-calls";

export const CALL_PAID_MCP_TOOL = "call_paid_mcp_tool";

/** Arguments larger than this are not a tool call a model should make. */
const MAX_ARGUMENTS_CHARS = 8_000;

// Wrapped once per process, so the AI SDK converts it to JSON Schema once (see call-paid-service-tool.ts).
const CALL_INPUT = zodSchema(
  z.object({
    endpoint: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe("The MCP server's endpoint, exactly as discover_services listed it"),
    tool: z.string().regex(MCP_TOOL_NAME).describe("The MCP tool's name, as discover_services listed it"),
    arguments: z
      .looseObject({})
      .default({})
      .refine((value) => JSON.stringify(value).length <= MAX_ARGUMENTS_CHARS, `at most ${MAX_ARGUMENTS_CHARS} characters of JSON`)
      .describe("The tool's arguments, as its listed input schema says"),
  }),
);

/**
 * Calls a tool of an MCP server found with discover_services (x402 over MCP), paying for it
 * within the user's limits when it asks. The model chooses the tool and its arguments; the code
 * checks them against the tool's schema and decides whether and how much may be paid.
 */
export function createCallPaidMcpToolTool(run: AgentRun) {
  return tool({
    description:
      "Call a tool of an MCP server that discover_services listed under mcpTools (x402 over MCP), paying in USDC within the user's spending limits when the tool asks for payment, and return its result. Give the listed endpoint, the tool's name and its arguments as its input schema says. Payment limits, payee and amount are enforced by the system, not by you.",
    inputSchema: CALL_INPUT,
    execute: async ({ endpoint, tool: toolName, arguments: args }, { toolCallId, abortSignal }) => {
      const key = createHash("sha256").update(JSON.stringify(args)).digest("hex").slice(0, 16);
      if (!run.admitToolCall(`mcp:${endpoint}:${toolName}:${key}`)) return tooManyCalls();
      const outcome = await run.purchaseMcpTool({ endpoint, toolName, arguments: args, intent: toolCallId, signal: abortSignal });
      return describeOutcome(outcome);
    },
  });
}
