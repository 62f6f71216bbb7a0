/**
 * A tool's answer as MCP carries it: the structured result, and the same as JSON text for
 * clients that read only text. A refusal or a failure is still an answer (`isError`), so the
 * client's model sees what happened and that nothing, or what, was paid.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { asAppError } from "../errors";

export function toolResult(value: Record<string, unknown>, options: { isError?: boolean } = {}): CallToolResult {
  const structured = toJson(value) as Record<string, unknown>;
  return {
    content: [{ type: "text", text: JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
    ...(options.isError ? { isError: true } : {}),
  };
}

/** Anything thrown, as a safe message (details stay in the logs, like every other error). */
export function toolFailure(error: unknown, log: (entry: Record<string, unknown>) => void = (entry) => console.error(JSON.stringify(entry))): CallToolResult {
  const problem = asAppError(error);
  if (problem.status >= 500) log({ level: "error", event: "mcp-tool-failed", code: problem.code, details: problem.details });
  return toolResult({ status: "error", code: problem.code, message: problem.safeMessage }, { isError: true });
}

/** Amounts are bigints in code; JSON has none, so they travel as decimal strings. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item))) as unknown;
}
