import "server-only";
/**
 * The limits and keys one MCP call runs under, made the chat's way: the caller's limits from
 * its budget and what it asked (callerLimits), and request keys in the caller's namespace
 * (namespaceOf), so a retried call finds its first outcome and no other caller's.
 */
import { createHash } from "node:crypto";
import { callerLimits, type CallerLimits } from "../access/caller-limits";
import { namespaceOf } from "../chat/request-key";
import type { SpendingLimitsInput } from "../limits/spending-limits-input";
import type { McpContext } from "./mcp-context";

/** The limits of one call; the agent wallet pays every payment of this door. */
export function limitsOf(context: McpContext, requested: SpendingLimitsInput | undefined): CallerLimits {
  const { deps } = context;
  return callerLimits(requested, deps.settings.limitSettings, context.caller, { pays: deps.agentAccount !== undefined, dailyCap: deps.settings.access.walletDailyCap });
}

/** Whose keys these are: the named caller, else the client address (as in the chat). */
export function namespaceOfCaller(context: McpContext): string {
  return namespaceOf(context.caller, undefined, context.clientKey);
}

/**
 * The request key of one tool call: the caller's `idempotencyKey` when it gave one, else the
 * JSON-RPC request id (hashed: an id may be any string). The purchase path derives each
 * payment's at-most-once key from it, so the same key again pays at most once.
 */
export function requestKeyOf(context: McpContext, tool: string, call: { idempotencyKey?: string; requestId: string | number }): string {
  const own = call.idempotencyKey !== undefined ? `key:${call.idempotencyKey}` : `rpc:${createHash("sha256").update(JSON.stringify(call.requestId)).digest("hex").slice(0, 32)}`;
  return `mcp:${namespaceOfCaller(context)}:${tool}:${own}`;
}

/** The prefixes of every request key this caller's requests have, through either door. */
export function requestKeyPrefixes(context: McpContext): string[] {
  const namespace = namespaceOfCaller(context);
  return [`key:${namespace}:`, `conversation:${namespace}:`, `mcp:${namespace}:`];
}
