/**
 * The shapes shared by the steps of a purchase: what it depends on, what is asked, the frozen
 * quote, and every outcome a purchase can have.
 */
import type { CallMethod } from "../../x402/input-contract";
import type { LocalAccount } from "viem";
import type { PayeePolicy } from "../../limits/payee-policy";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import type { NetworkConfig } from "../../network/network-config";
import type { ChannelLedger } from "../../channels/channel-ledger";
import type { SpendingLedger } from "../../store/store-types";
import type { AgentConfirmation, ApprovalRequest, PaymentFailureReason, SettlementFlag } from "../../stream";
import type { ChainReader } from "../../x402/chain-reader";
import type { OutgoingPaymentPayload } from "../../x402/payment-payload";
import type { PaymentRefusal } from "../../x402/payment-refusal";
import type { PayableRequirement, PaymentRequired } from "../../x402/payment-requirements";
import type { RequestContentType } from "../../x402/request-body";
import type { buildTransferTypedData } from "../../x402/transfer-authorization";
import type { UptoPermitTypedData } from "../../x402/upto-permit2";
import type { PaymentTracker } from "./payment-tracker";
import type { ServiceData } from "./service-data";
import type { PayerFunding } from "./payer-funding";

export type { FundedPayer, PayerFunding } from "./payer-funding";

export type OutboundFetch = (input: string, init?: RequestInit) => Promise<Response>;

/** A call asked of a service without payment (stage 1). */
export type UnpaidRequest = {
  service: string;
  url: string;
  method: string;
  body?: string;
  contentType?: RequestContentType;
  signal?: AbortSignal;
};

export type UnpaidAnswer =
  /** Served without payment: the answer, its body unread. */
  | { status: "free"; response: Response }
  | { status: "payment-required"; paymentRequired: PaymentRequired }
  | { status: "failed"; reason: PaymentFailureReason; message: string };

/**
 * A transport's "ask without paying": over HTTP the unpaid request and its 402
 * (ask-without-paying.ts); over MCP the tool's payment request, handed over as it is.
 */
export type AskWithoutPaying = (request: UnpaidRequest) => Promise<UnpaidAnswer>;

/** A paid request as a transport sends it (stage 8): the call as quoted, and the payment payload. */
export type PaidCall = {
  service: string;
  url: string;
  method: string;
  body?: string;
  contentType?: RequestContentType;
  payment: OutgoingPaymentPayload;
  signal: AbortSignal;
};

/** A service's answer to a paid request, as every transport hands it over. */
export type PaidAnswer = {
  /** Whether the service delivered: an HTTP 2xx; an MCP tool result that is not an error. */
  delivered: boolean;
  /** What it delivered, unread, as a service's data is read (service-data.ts); nothing to read when it delivered nothing. */
  content: Response;
  /** The settlement it reports, decoded and unchecked: `PAYMENT-RESPONSE`, or the tool result's `_meta["x402/payment-response"]`. */
  settlement: unknown;
  /** Why it refused the payment, where it says so; may read what is left of the answer. */
  refusal(): Promise<PaymentRefusal | undefined>;
  /**
   * The payment request it sent again instead of delivering (a 402's `PAYMENT-REQUIRED`, an MCP
   * tool's payment request), read by the 402 schemas; a channel service's corrective 402 carries
   * its proven channel state there.
   */
  paymentRequired?: PaymentRequired;
  /** It answered with a payment request instead of delivering (HTTP 402; an MCP tool's payment request again): the payment was refused. */
  refused?: true;
  /** What the answer was, in a sentence, for a paid call that delivered nothing proven. */
  description: string;
};

/**
 * A transport's "send with payment": over HTTP the paid request and its answer
 * (send-with-payment.ts); over MCP the paid `tools/call` and its result (mcp-exchange.ts).
 */
export type SendWithPayment = (call: PaidCall) => Promise<PaidAnswer>;

export type PurchaseDependencies = {
  network: NetworkConfig;
  fetch: OutboundFetch;
  /**
   * The same guarded fetch with its body handed on as a stream (the event stream of an MCP
   * server on the SSE transport). Absent: SSE-transport tools are refused, nothing sent.
   */
  openStream?: OutboundFetch;
  chain: ChainReader;
  ledger: SpendingLedger;
  quoteSecret: string;
  now: () => number;
  /** Waits between chain reads; tests pass one that moves a fake clock. */
  sleep?: (ms: number) => Promise<void>;
  /** How long a user has to approve a quote. */
  approvalTtlSeconds?: number;
  /**
   * The longest an agent-wallet authorization stays valid. Short on purpose: when a service
   * fails after receiving a payment, the chain can only prove nothing was spent once the
   * authorization has expired, and the request waits for that proof.
   */
  agentAuthorizationTtlSeconds?: number;
  /** How often to look at the chain while a settlement is uncertain. */
  reconcileIntervalMs?: number;
  /** Where failures that lose a record are logged. */
  log?: (entry: Record<string, unknown>) => void;
  /** The operator's payee policy; absent means every payee, asset and network. */
  payeePolicy?: PayeePolicy;
  /** Whether the payer has paid this payee before (a first payment is flagged to the person). */
  hasPaid?: (payer: string, payTo: string) => Promise<boolean>;
  /**
   * The channel ledger (the database store's): it leases each payment channel to one call at a
   * time across instances and counts its deposit and vouchers in the budgets. Absent (the memory
   * and Redis stores): channel (`batch-settlement`) options are not chosen.
   */
  channels?: ChannelLedger;
  /** How many calls a channel's deposit is sized for (at least the service's suggested deposit); 100 unless named. */
  channelDepositCalls?: bigint;
};

/** Who signs: the agent wallet (or a payer key a grant funds), or the user's own wallet, asked each time. */
export type Payer = { kind: "agent"; account: LocalAccount; funding?: PayerFunding } | { kind: "user"; address: `0x${string}` };

export type PurchaseMethod = CallMethod;

export type PurchaseRequest = {
  service: string;
  url: string;
  method: PurchaseMethod;
  body?: string;
  /** How `body` is sent (request-body.ts); JSON when not named. */
  contentType?: RequestContentType;
  /** The price the service's discovery listing advertised (base units), when it was listed. */
  listedAmount?: bigint;
  /** What the payment is for (a tool call id); keeps one intent to one authorization. */
  intent: string;
  /** The intent's x402 payment identifier (lib/x402/payment-identifier.ts), sent where the 402 declares the extension. */
  paymentIdentifier?: string;
  /** How stage 1 asks: over HTTP when absent (the MCP transport hands over its tool's payment request). */
  ask?: AskWithoutPaying;
  /** How stage 8 sends the payment: over HTTP when absent (the MCP transport calls its tool with it). */
  send?: SendWithPayment;
  payer: Payer;
  limits: EffectiveLimits;
  maxPayments: number;
  tracker: PaymentTracker;
  /** Epoch ms after which no new payment may start and every wait ends. */
  deadline: number;
  signal?: AbortSignal;
};

export type PurchaseOutcome =
  | {
      status: "delivered";
      paymentId: string;
      service: string;
      resource: string;
      /** What was paid: for a metered (`upto`) payment, what the chain shows it settled. */
      amount: string;
      txHash: string;
      data: ServiceData;
      paymentIdentifier?: string;
      /** A metered payment: its signed ceiling, and how the settlement reads against the service's metering. */
      metered?: MeteredSettlement;
      /** Paid by a voucher on a payment channel: the channel and the voucher's cumulative amount (`txHash` is then the deposit's, or empty). */
      voucher?: { channelId: `0x${string}`; cumulative: string };
    }
  | { status: "free"; service: string; resource: string; data: ServiceData }
  /** Served without a payment to a wallet that signed in (sign-in-with-x) and had paid before. */
  | { status: "signed-in"; service: string; resource: string; payer: `0x${string}`; data: ServiceData }
  | { status: "awaiting-approval"; paymentId: string; service: string; amount: string; approval: ApprovalRequest }
  /** The agent wallet waits for the person's go-ahead (a URL of unknown origin). */
  | { status: "awaiting-confirmation"; paymentId: string; service: string; amount: string; confirmation: AgentConfirmation }
  | { status: "failed"; paymentId: string; reason: PaymentFailureReason; message: string; txHash?: string; paymentIdentifier?: string }
  /**
   * A signed authorization may have reached the service and the chain has not decided its
   * fate: the budget stays reserved, the reconciler settles it, and it is never retried.
   */
  | { status: "pending"; paymentId: string; message: string; txHash?: string; expiresAt: number; paymentIdentifier?: string }
  /** Refused before any request to the service: nothing was asked, signed or spent. */
  | { status: "refused"; message: string };

export type TransferTypedData = ReturnType<typeof buildTransferTypedData>;

/** A metered payment's settlement, as the model and the caller are told it. */
export type MeteredSettlement = { ceiling: string; settlementFlag?: SettlementFlag; message: string };

/** A quote frozen from a 402: the exact terms that are signed and, later, proven. */
export type Quote = {
  id: string;
  service: string;
  url: string;
  method: PurchaseMethod;
  body: string | undefined;
  contentType: RequestContentType | undefined;
  option: PayableRequirement;
  /** The v2 `resource` object echoed in the payment payload. */
  resource: { url: string } | undefined;
  validAfter: bigint;
  validBefore: bigint;
  nonce: `0x${string}`;
  payer: `0x${string}`;
  payerKind: Payer["kind"];
  /** The payload's v2 extensions: what the service declared and we echo, with our additions. */
  extensions?: Record<string, unknown>;
};

export type ApprovedPayment = {
  service: string;
  url: string;
  method: PurchaseMethod;
  /** The body the user's signature covers (bound by the nonce), sent as it was quoted. */
  body?: string;
  /** Its content type, bound and sent the same way. */
  contentType?: RequestContentType;
  option: PayableRequirement;
  resource: { url: string } | undefined;
  /** The 402's extensions frozen into the approval (bound by the nonce), echoed to the service. */
  extensions?: Record<string, unknown>;
  /** What the user signed: an EIP-3009 authorization (`exact`) or a Permit2 permit (`upto`). */
  typedData: TransferTypedData | UptoPermitTypedData;
  signature: `0x${string}`;
  /** The quote's HMAC nonce (a permit carries it as a uint256) and its window, in seconds. */
  nonce: `0x${string}`;
  validAfter: bigint;
  validBefore: bigint;
};

/** A paid request on its way to the service: its tracker, deadline and transport. */
export type PaidRequest = {
  tracker: PaymentTracker;
  deadline: number;
  signal?: AbortSignal;
  send?: SendWithPayment;
  /** Where a funded payer's money came from (a grant's pull), said with the paying step. */
  funded?: string;
};

/** Payment ids derive from the nonce, so both requests of an approval name the same payment. */
export function paymentIdForNonce(nonce: string): string {
  return `pay_${nonce.slice(2, 18)}`;
}
