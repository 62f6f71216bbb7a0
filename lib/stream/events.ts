/**
 * Protocol v1 of the chat stream: the four line kinds of the spec (`0:`, `p:`, `e:`, `d:`)
 * and their payloads. Server and browser both import these schemas, so the wire format
 * cannot drift between the writer and the reader.
 */
import { z } from "zod";
import { PaymentReceipt } from "./payment-receipt";
import { AgentConfirmation } from "./agent-confirmation";
import { DeliveredResult } from "./delivered-result";
import { AccessKind, SignInRequest } from "./sign-in-request";
import { Address, TxHash, UsdcDecimal } from "./wire-primitives";
import { ApprovalRequest } from "./approval-request";
import { ServiceEvidence } from "./service-evidence";

export { AgentConfirmation } from "./agent-confirmation";
export { Permit2WitnessTypedData } from "./permit2-typed-data";

export const PROTOCOL_VERSION = 1;

/** The spec's finish reasons, exactly. */
export const FinishReason = z.enum(["stop", "payment-complete", "payment-failed", "limit-exceeded", "insufficient-balance", "service-unavailable"]);
export type FinishReason = z.infer<typeof FinishReason>;

/**
 * Progress statuses in the order they may occur. A status of one `id` may only be followed by
 * a later one in this list; `failed` is terminal and may follow any status except `delivered`.
 * Discovery uses `discovering` → `discovered`; payments use the rest.
 */
export const PAYMENT_STATUS_ORDER = [
  "discovering",
  "discovered",
  "quoted",
  "awaiting-approval",
  "signing",
  "verifying",
  "settling",
  "pending",
  "confirmed",
  "delivered",
  "failed",
] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUS_ORDER);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** Outcome a payment can end with; `failed` events carry one as `reason`. */
export const PaymentFailureReason = z.enum([
  "payment-failed",
  "limit-exceeded",
  "insufficient-balance",
  "service-unavailable",
  "rejected",
  "deadline",
  "aborted",
]);
export type PaymentFailureReason = z.infer<typeof PaymentFailureReason>;

export { Address, TxHash, UsdcDecimal } from "./wire-primitives";

/**
 * A metered (`upto`) payment that settled more than the service's own account of its use
 * justifies (units used × the unit price it quoted, what it said it charged, or what its
 * settlement reported): flagged to the person and in the journal. Never more than the signed
 * ceiling, which the chain enforces.
 */
export const SettlementFlag = z.enum(["over-settled"]);
export type SettlementFlag = z.infer<typeof SettlementFlag>;

/** One service found by discovery, as shown to people and to the model. */
export const DiscoveredService = z.object({
  name: z.string(),
  resource: z.string(),
  description: z.string().optional(),
  price: UsdcDecimal.optional(),
  network: z.string().optional(),
  x402Version: z.number().int().optional(),
  /** How to call it, from what the service declared (method, parameters, body), in one line. */
  usage: z.string().max(800).optional(),
  /** Set when the listing is an MCP tool: its name; `resource` is then its MCP server's endpoint. */
  mcpTool: z.string().max(128).optional(),
  /** What this deployment knows of it: its last unpaid probe and our own payments there (lib/evidence). */
  evidence: ServiceEvidence.optional(),
});
export type DiscoveredService = z.infer<typeof DiscoveredService>;

/**
 * Why discovery left a listing out before anyone chose among them: the guarded fetch refuses its
 * address (not public, not allowlisted), it is the payment network's own server (chain RPC,
 * facilitator), or it is this app's own endpoint; or an unpaid probe found it cannot be bought:
 * no answer, no terms this deployment can pay, a price above its listing, or an error before
 * any payment.
 */
export const DroppedReason = z.enum(["refused-address", "network-server", "this-app", "unreachable", "unpayable", "price-above-listing", "failing"]);
export type DroppedReason = z.infer<typeof DroppedReason>;

/** On `discovered`: how many listings were left out, per reason (reasons with none are absent). */
export const DroppedListings = z.partialRecord(DroppedReason, z.number().int().min(1));
export type DroppedListings = z.infer<typeof DroppedListings>;

export { ApprovalRequest, MAX_APPROVAL_BODY_CHARS, TransferAuthorizationTypedData } from "./approval-request";

/** `p:` payload: one progress event of a payment or of a discovery. */
export const PaymentEvent = z.object({
  id: z.string().min(1).max(128),
  status: PaymentStatus,
  /** Milliseconds since the epoch at which the server emitted the event. */
  at: z.number().int().nonnegative().optional(),
  service: z.string().optional(),
  resource: z.string().optional(),
  amount: UsdcDecimal.optional(),
  /**
   * A metered (`upto`) payment: the most its signature allows. `amount` is this ceiling until
   * the chain shows what was settled, and the settled amount from then on.
   */
  ceiling: UsdcDecimal.optional(),
  /** Set on the settlement of a metered payment that took more than the service's metering says. */
  settlementFlag: SettlementFlag.optional(),
  asset: Address.optional(),
  network: z.string().optional(),
  payTo: Address.optional(),
  payer: Address.optional(),
  /** The payer has never paid this payee before: a first payment, shown as such. */
  newPayee: z.literal(true).optional(),
  txHash: TxHash.optional(),
  explorerUrl: z.string().optional(),
  message: z.string().optional(),
  /**
   * On `pending`: unix seconds at which the signed authorization (its `validBefore`) stops being
   * usable. Until then a service holding it may still settle it; after it, nothing can be spent.
   */
  expiresAt: z.number().int().nonnegative().optional(),
  reason: PaymentFailureReason.optional(),
  services: z.array(DiscoveredService).optional(),
  /** On `discovered`: listings left out because the agent could never call them (older servers send none). */
  dropped: DroppedListings.optional(),
  approval: ApprovalRequest.optional(),
  /** Beside an approval: the service's sign-in-with-x challenge, to sign instead of paying again. */
  signIn: SignInRequest.optional(),
  /** On `delivered`: served by sign-in, no payment (no amount, no hash). */
  access: AccessKind.optional(),
  /** The service's signed receipt, checked (on the `delivered` event). */
  receipt: PaymentReceipt.optional(),
  /** Instead of an approval: the agent wallet waits for the person's go-ahead (see AgentConfirmation). */
  confirmation: AgentConfirmation.optional(),
  /**
   * On `delivered`: the service's answer for the page's result card, bounded (see
   * delivered-result.ts). One over the bounds is dropped, never the event that carries it.
   */
  result: DeliveredResult.optional().catch(undefined),
});
export type PaymentEvent = z.infer<typeof PaymentEvent>;

/** `e:` payload: for a person; never a stack trace, key or internal URL. */
export const ErrorEvent = z.object({
  code: z.string().min(1),
  message: z.string(),
});
export type ErrorEvent = z.infer<typeof ErrorEvent>;

/** The outcome of one payment attempt, as listed in `d:`. */
export const PaymentSummary = z.object({
  id: z.string(),
  status: PaymentStatus,
  service: z.string().optional(),
  resource: z.string().optional(),
  amount: UsdcDecimal.optional(),
  /** A metered (`upto`) payment's signed ceiling; `amount` is then what was settled once it was. */
  ceiling: UsdcDecimal.optional(),
  settlementFlag: SettlementFlag.optional(),
  payTo: Address.optional(),
  network: z.string().optional(),
  txHash: TxHash.nullable(),
  reason: PaymentFailureReason.optional(),
  receipt: PaymentReceipt.optional(),
});
export type PaymentSummary = z.infer<typeof PaymentSummary>;

/** `d:` payload: exactly one, always last. */
export const FinishEvent = z.object({
  finishReason: FinishReason,
  /** The last settled payment's hash, or null. */
  txHash: TxHash.nullable(),
  payments: z.array(PaymentSummary),
  /** Set when the request ended waiting for the user's signature. */
  pendingApproval: z.object({ id: z.string(), approval: ApprovalRequest }).optional(),
  /** Set when the request paid under a grant: what is left of it after this turn (USDC). */
  grant: z.object({ id: z.string(), remaining: UsdcDecimal }).optional(),
  protocolVersion: z.literal(PROTOCOL_VERSION),
  model: z.string().optional(),
});
export type FinishEvent = z.infer<typeof FinishEvent>;

/** One decoded line of the stream, tagged by kind. */
export type StreamEvent =
  { type: "text"; text: string } | { type: "payment"; payment: PaymentEvent } | { type: "error"; error: ErrorEvent } | { type: "finish"; finish: FinishEvent };

export const PREFIX_BY_TYPE = {
  text: "0",
  payment: "p",
  error: "e",
  finish: "d",
} as const satisfies Record<StreamEvent["type"], string>;

/** Validates a payload for a given line prefix; the single place wire JSON becomes an event. */
export function parseLinePayload(prefix: string, payload: unknown): { success: true; event: StreamEvent } | { success: false; reason: string } {
  switch (prefix) {
    case "0": {
      const result = z.string().safeParse(payload);
      return result.success ? { success: true, event: { type: "text", text: result.data } } : { success: false, reason: "text chunk is not a JSON string" };
    }
    case "p": {
      const result = PaymentEvent.safeParse(payload);
      return result.success
        ? { success: true, event: { type: "payment", payment: result.data } }
        : { success: false, reason: `invalid payment event: ${z.prettifyError(result.error)}` };
    }
    case "e": {
      const result = ErrorEvent.safeParse(payload);
      return result.success
        ? { success: true, event: { type: "error", error: result.data } }
        : { success: false, reason: `invalid error event: ${z.prettifyError(result.error)}` };
    }
    case "d": {
      const result = FinishEvent.safeParse(payload);
      return result.success
        ? { success: true, event: { type: "finish", finish: result.data } }
        : { success: false, reason: `invalid finish event: ${z.prettifyError(result.error)}` };
    }
    default:
      return { success: false, reason: `unknown prefix "${prefix}"` };
  }
}
