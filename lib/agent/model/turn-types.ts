/** What the offline demo model decides at each step of a turn, and what it reads back. */

export const CALL_TOOL = "call_paid_service";
export const CALL_MCP_TOOL = "call_paid_mcp_tool";
export const DISCOVER_TOOL = "discover_services";

/** A text answer that ends the turn, or one tool call. */
export type Decision = { type: "text"; text: string } | { type: "tool"; toolName: string; input: Record<string, unknown> };

/** A tool's result in this turn, as the prompt carries it. */
export type ToolResult = { toolName: string; value: unknown };
