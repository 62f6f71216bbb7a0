import "server-only";
/**
 * The limits and keys one MCP call runs under, made the chat's way: the caller's limits from
 * its budget and what it asked (callerLimits), and request keys in the caller's namespace
 * (namespaceOf), so a retried call finds its first outcome and no other caller's.
 */
import { createHash } from "node:crypto";
import { callerLimits, type CallerLimits } from "../access/caller-limits";
import { namespaceOf, namespaceOfRequestKey, scopedRequestKey } from "../doors/request-key";
import type { SpendingLimitsInput } from "../limits/spending-limits-input";
import type { McpContext } from "./mcp-context";

/** The limits of one call; the agent wallet pays every payment of this door. */
export function limitsOf(context: McpContext, requested: SpendingLimitsInput | undefined): CallerLimits {
  const { deps } = context;
  return callerLimits(requested, deps.settings.limitSettings, context.caller, {
    // Under a grant the user's own wallet pays: no share of the agent wallet is counted.
    pays: deps.agentAccount !== undefined && context.grant === undefined,
    dailyCap: deps.settings.access.walletDailyCap,
  });
}

/** Whose keys these are: the named caller, else the client address (as in the chat). */
export function namespaceOfCaller(context: McpContext): string {
  return namespaceOf(context.caller, undefined, context.clientKey);
}

/**
 * The request key of one tool call: the caller's `idempotencyKey` when it gave one, else the
 * JSON-RPC request id within this HTTP request (`context.exchangeId`). The purchase path
 * derives each payment's at-most-once key from it, so the same key again pays at most once.
 *
 * The server is stateless: every HTTP request is a new connection whose client may number its
 * calls from 0 again, so an id alone would make a later connection's call replay an earlier
 * one's purchase. Mixed with the exchange's random id, an id names one call only; a retry, which
 * is a new HTTP request, is a new purchase unless it carries the same `idempotencyKey`.
 */
export function requestKeyOf(context: McpContext, tool: string, call: { idempotencyKey?: string; requestId: string | number }): string {
  const own =
    call.idempotencyKey !== undefined
      ? `key:${call.idempotencyKey}`
      : `rpc:${createHash("sha256")
          .update(`${context.exchangeId}\n${JSON.stringify(call.requestId)}`)
          .digest("hex")
          .slice(0, 32)}`;
  return scopedRequestKey("mcp", namespaceOfCaller(context), `${tool}:${own}`);
}

/**
 * Whether a request key is this caller's, made through either door: its namespace, read back
 * whole, equals the caller's. Never a prefix match, which would find every namespace that
 * extends this one (`ip:2001:db8::1:2` after `ip:2001:db8::1`).
 */
export function isOwnRequestKey(context: McpContext, requestKey: string): boolean {
  return namespaceOfRequestKey(requestKey) === namespaceOfCaller(context);
}
