import "server-only";
/**
 * What every tool of one MCP request works with: the process's dependencies (the chat's), the
 * admitted caller, and the request's clock and lifetime. The server is stateless, so a context
 * lives exactly as long as its HTTP request.
 */
import type { Caller } from "../access/caller";
import type { FundedPayer } from "../agent/purchase/purchase-types";
import type { AppDependencies } from "../doors/app-dependencies";
import type { PaymentEvent } from "../stream";

export type McpContext = {
  deps: AppDependencies;
  caller: Caller;
  /** The client address's bucket: the namespace of an anonymous caller's keys (request-key.ts). */
  clientKey: string;
  /**
   * A random id of this HTTP request (this connection): a JSON-RPC id names a call only within
   * it, since a client numbers each connection's calls afresh (call-scope.ts).
   */
  exchangeId: string;
  /** When the HTTP request arrived (epoch ms, on `deps.now`'s clock): its deadline counts from here. */
  arrivedAt: number;
  /**
   * The grant whose token the request carried: `buy` and `ask_agent` then pay from that wallet
   * under the grant (lib/doors/grant-payer-for.ts) instead of from the agent wallet.
   */
  grant?: { walletAddress: `0x${string}`; payer: FundedPayer };
};

/** One tool call: its JSON-RPC id, where its progress goes, and when it must stop. */
export type McpToolCall = {
  requestId: string | number;
  /** Sends a payment's progress to the client, when it asked for progress (progress.ts). */
  progress: (payment: PaymentEvent) => void;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
};
