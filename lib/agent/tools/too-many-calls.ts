import { MAX_TOOL_CALLS_PER_STEP } from "../agent-run-types";

/** The result of a tool call refused because its step already ran as many as allowed. */
export function tooManyCalls() {
  return {
    status: "refused" as const,
    message: `Too many tool calls in one step: at most ${MAX_TOOL_CALLS_PER_STEP} run at a time. This call was not run; call again in the next step if it is still needed.`,
  };
}
