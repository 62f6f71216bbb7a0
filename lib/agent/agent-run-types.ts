/** What the chat's tools hand an AgentRun (agent-run.ts): the calls to buy, and the caller's privileges. */
import type { BodyType, CallMethod } from "../x402/input-contract";
import type { EncodedBody, RequestBodyValue } from "../x402/request-body";
import type { EffectiveLimits } from "../limits/spending-limits-input";
import type { ChatMessage } from "../stream/chat-request";
import type { PaymentListener } from "./purchase/payment-listener";
import type { FundedPayer } from "./purchase/purchase-types";

export type PurchaseCall = {
  url: string;
  method: CallMethod;
  /** As the model gave it: fields or text, and how to send it when it said (request-body.ts). */
  body?: { value: RequestBodyValue; type?: BodyType };
  intent: string;
  signal?: AbortSignal;
};

/** A call of an MCP tool, as the model asked for it (call-paid-mcp-tool-tool.ts). */
export type McpToolCall = {
  /** The MCP server's endpoint, as discovery listed it. */
  endpoint: string;
  toolName: string;
  arguments: Record<string, unknown>;
  intent: string;
  signal?: AbortSignal;
};

/**
 * The one request a caller named in its own arguments rather than in words (MCP `buy`): as a
 * URL the user wrote in the chat (named-urls.ts), the agent wallet pays it without a go-ahead.
 */
export type NamedCall = { method: CallMethod; url: string };

/** A call with its body encoded: exactly what is quoted and sent. */
export type EncodedCall = Omit<PurchaseCall, "body"> & { body?: EncodedBody };

/**
 * Distinct tool calls run per model step. A model can ask for hundreds at once (each a
 * discovery or a purchase); past this bound they are refused without running. The same call
 * repeated in a step costs nothing more (it gets the first one's outcome), so it is not counted.
 */
export const MAX_TOOL_CALLS_PER_STEP = 6;

/** The caller's privilege to have URLs called that no discovery listed (see mayCallUnlisted). */
export type UnlistedCalls = {
  allowed: boolean;
  /** Counts one call in the caller's rate-limit window; false when the window is used up. */
  count: () => Promise<boolean>;
};

/** What one run of the agent is asked with (a chat request, or MCP `buy`'s named call). */
export type AgentRunInput = {
  messages: ChatMessage[];
  /** The one call the caller named as arguments (MCP `buy`; no messages then). */
  namedCall?: NamedCall;
  walletAddress: `0x${string}` | undefined;
  limits: EffectiveLimits;
  writer: PaymentListener;
  /** Epoch ms: no payment starts after it, and every wait ends by it. */
  deadline: number;
  /** Identifies the request across retries (Idempotency-Key, or a hash of payer and conversation). */
  requestKey: string;
  /** Whether a signature of this request proved `walletAddress` is the caller's (wallet-proof.ts). */
  walletProven: boolean;
  /** The grant this request pays under (its payer key and funding), when the door found one. */
  grantPayer?: FundedPayer;
  /** Whether, and how often, this caller may have the server call URLs no discovery listed. */
  unlisted?: UnlistedCalls;
};
