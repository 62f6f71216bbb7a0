/**
 * Time kept back from a request's deadline so its last words always go out: the chat's final
 * lines, an MCP tool's result. Every door's run stops paying this long before its deadline.
 */
export const FINISH_MARGIN_MS = 1_500;
