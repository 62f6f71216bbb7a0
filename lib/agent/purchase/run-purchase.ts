import "server-only";
/**
 * One purchase from a paid x402 service, from the first request to the delivered data:
 * ask → read the 402 → freeze a quote → check limits and balance → reserve → sign (or ask the
 * user to) → pay → confirm → deliver. Every stage is reported as it happens. Limits are
 * decided here, in code, before any signature exists.
 */
import { createHash } from "node:crypto";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { LocalAccount } from "viem";
import { AppError } from "../../errors";
import { checkPayment } from "../../limits/check-payment";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import { formatUsdc } from "../../money";
import { explorerTransactionUrl } from "../../network/network-presets";
import type { NetworkConfig } from "../../network/network-config";
import type { SpendingLedger } from "../../store/store-types";
import type { ApprovalRequest, PaymentFailureReason } from "../../stream";
import { deriveAuthorizationNonce } from "../../x402/authorization-nonce";
import type { ChainReader } from "../../x402/chain-reader";
import {
  readPaymentRequired,
  selectPayableRequirement,
  type PayableRequirement,
  type PaymentRequired,
} from "../../x402/payment-requirements";
import { readSettlement } from "../../x402/read-settlement";
import { buildPaymentPayload, buildTransferTypedData, toViemTypedData } from "../../x402/transfer-authorization";
import type { PaymentTracker } from "./payment-tracker";
import { readServiceData, type ServiceData } from "./service-data";

export type OutboundFetch = (input: string, init?: RequestInit) => Promise<Response>;

export type PurchaseDependencies = {
  network: NetworkConfig;
  fetch: OutboundFetch;
  chain: ChainReader;
  ledger: SpendingLedger;
  quoteSecret: string;
  now?: () => number;
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
};

export type Payer = { kind: "agent"; account: LocalAccount } | { kind: "user"; address: `0x${string}` };

export type PurchaseRequest = {
  service: string;
  url: string;
  method: "GET" | "POST";
  body?: string;
  /** What the payment is for (a tool call id); keeps one intent to one authorization. */
  intent: string;
  payer: Payer;
  limits: EffectiveLimits;
  maxPayments: number;
  tracker: PaymentTracker;
  /** Epoch ms after which no new payment may start and every wait ends. */
  deadline: number;
  signal?: AbortSignal;
};

export type PurchaseOutcome =
  | { status: "delivered"; paymentId: string; service: string; resource: string; amount: string; txHash: string; data: ServiceData }
  | { status: "free"; service: string; resource: string; data: ServiceData }
  | { status: "awaiting-approval"; paymentId: string; service: string; amount: string; approval: ApprovalRequest }
  | { status: "failed"; paymentId: string; reason: PaymentFailureReason; message: string; txHash?: string }
  | { status: "pending"; paymentId: string; message: string; txHash?: string }
  /** Refused before any request to the service: nothing was asked, signed or spent. */
  | { status: "refused"; message: string };

/** No payment starts with less time than this left before the deadline. */
export const MIN_PAYMENT_WINDOW_SECONDS = 8;
const DEFAULT_APPROVAL_TTL_SECONDS = 300;
const DEFAULT_AGENT_AUTHORIZATION_TTL_SECONDS = 20;
/** Past validBefore, wait this long for a block that may still carry the transfer. */
const EXPIRY_MARGIN_SECONDS = 3n;
const CLOCK_SKEW_SECONDS = 60n;

type Quote = {
  id: string;
  service: string;
  url: string;
  method: "GET" | "POST";
  body: string | undefined;
  option: PayableRequirement;
  paymentRequired: PaymentRequired;
  validAfter: bigint;
  validBefore: bigint;
  nonce: `0x${string}`;
  payer: `0x${string}`;
};

export async function runPurchase(deps: PurchaseDependencies, request: PurchaseRequest): Promise<PurchaseOutcome> {
  const now = deps.now ?? Date.now;
  const payerAddress = request.payer.kind === "agent" ? request.payer.account.address : request.payer.address;
  const provisionalId = `pay_${createHash("sha256").update(`${request.intent}\n${request.url}`).digest("hex").slice(0, 16)}`;
  const base = { service: request.service, resource: request.url };

  const fail = (id: string, reason: PaymentFailureReason, message: string): PurchaseOutcome => {
    request.tracker.update({ id, status: "failed", reason, message, ...base });
    return { status: "failed", paymentId: id, reason, message };
  };

  // The payer's balance is needed at step 5; reading it alongside the unpaid request saves a
  // round trip on every payment (the read is wasted only when no payment follows).
  const balanceRead = deps.chain.balanceOf(payerAddress);
  balanceRead.catch(() => undefined);

  // 1. Ask the service, without paying.
  let first: Response;
  try {
    first = await deps.fetch(request.url, { method: request.method, body: request.body, headers: jsonHeaders(request.body), signal: request.signal });
  } catch (error) {
    return fail(provisionalId, "service-unavailable", `${request.service} could not be reached (${describeFetchError(error)}).`);
  }
  if (first.ok) {
    return { status: "free", ...base, data: await readServiceData(first) };
  }
  if (first.status !== 402) {
    await first.body?.cancel();
    return fail(provisionalId, "service-unavailable", `${request.service} answered HTTP ${first.status} before any payment.`);
  }

  // 2. Read what it asks for and pick an option we can pay.
  const paymentRequired = readPaymentRequired(first.headers, await readJson(first));
  if (!paymentRequired) return fail(provisionalId, "payment-failed", `${request.service} sent a 402 without readable x402 payment requirements.`);
  const selection = selectPayableRequirement(paymentRequired, deps.network);
  if (!selection.ok) return fail(provisionalId, "payment-failed", `${request.service}: ${selection.reason}.`);
  const option = selection.option;

  // 3. Freeze the quote: validity window and a nonce bound to every term.
  const nowSeconds = BigInt(Math.floor(now() / 1000));
  const secondsLeft = Math.floor((request.deadline - now()) / 1000);
  const lifetime =
    request.payer.kind === "user"
      ? deps.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS
      : Math.min(option.maxTimeoutSeconds, secondsLeft - 2, deps.agentAuthorizationTtlSeconds ?? DEFAULT_AGENT_AUTHORIZATION_TTL_SECONDS);
  const validAfter = nowSeconds - CLOCK_SKEW_SECONDS;
  const validBefore = nowSeconds + BigInt(Math.max(lifetime, 0));
  const nonce = deriveAuthorizationNonce(deps.quoteSecret, {
    payer: payerAddress,
    payTo: option.payTo,
    amount: option.amount,
    asset: option.asset,
    network: option.network,
    chainId: deps.network.chainId,
    resource: request.url,
    method: request.method,
    validAfter,
    validBefore,
    requirements: option.requirements,
    intent: request.payer.kind === "user" ? "" : request.intent,
  });
  const quote: Quote = {
    id: paymentIdForNonce(nonce),
    service: request.service,
    url: request.url,
    method: request.method,
    body: request.body,
    option,
    paymentRequired,
    validAfter,
    validBefore,
    nonce,
    payer: payerAddress,
  };
  const amount = formatUsdc(option.amount);
  const quoted = { ...base, amount, asset: option.asset, network: option.network, payTo: option.payTo, payer: payerAddress };
  request.tracker.update({ id: quote.id, status: "quoted", ...quoted, message: `${request.service} asks ${amount} USDC.` });

  // 4. Limits, in code, before anything is signed.
  const check = checkPayment({ amount: option.amount, limits: request.limits, spentThisRequest: request.tracker.committedAmount });
  if (!check.ok) {
    const name = check.limit === "perPayment" ? "per-payment" : "per-request";
    return fail(quote.id, "limit-exceeded", `${amount} USDC is over your ${name} limit of ${formatUsdc(check.limitAmount)} USDC; nothing was signed.`);
  }
  if (request.payer.kind === "agent" && secondsLeft < MIN_PAYMENT_WINDOW_SECONDS) {
    return fail(quote.id, "deadline", "Too little time is left in this request to pay safely; nothing was signed.");
  }

  // 5. The payer must hold the amount.
  let balance: bigint;
  try {
    balance = await balanceRead;
  } catch {
    return fail(quote.id, "payment-failed", "The wallet's balance could not be read from the chain; nothing was signed.");
  }
  if (balance < option.amount) {
    return fail(quote.id, "insufficient-balance", `The paying wallet holds ${formatUsdc(balance)} USDC, less than the ${amount} USDC asked; nothing was signed.`);
  }

  const typedData = buildTransferTypedData(option, payerAddress, deps.network.chainId, { validAfter, validBefore, nonce });

  // 6. With the user's wallet, stop here and ask for a signature.
  if (request.payer.kind === "user") {
    const approval: ApprovalRequest = {
      method: request.method,
      resource: request.url,
      amount,
      asset: option.asset,
      network: option.network,
      payTo: option.payTo,
      expiresAt: Number(validBefore),
      x402Version: option.x402Version,
      scheme: "exact",
      requirements: option.requirements,
      typedData,
    };
    request.tracker.update({ id: quote.id, status: "awaiting-approval", ...quoted, approval, message: `Approve ${amount} USDC to ${request.service} in your wallet.` });
    return { status: "awaiting-approval", paymentId: quote.id, service: request.service, amount, approval };
  }

  // 7. Reserve: the per-request budget in this process, the daily budget in the store.
  const claim = request.tracker.claimRequestBudget(option.amount, request.limits.perRequest, request.maxPayments);
  if (claim !== "ok") {
    const message =
      claim === "count"
        ? `This request already made its ${request.maxPayments} payments; nothing was signed.`
        : `${amount} USDC would go over your per-request limit of ${formatUsdc(request.limits.perRequest)} USDC; nothing was signed.`;
    return fail(quote.id, "limit-exceeded", message);
  }
  const reserved = await reserveDaily(deps, quote, request);
  if (reserved !== "ok") {
    request.tracker.releaseRequestBudget(option.amount);
    return fail(quote.id, reserved.reason, reserved.message);
  }

  // 8. Sign with the agent wallet.
  request.tracker.update({ id: quote.id, status: "signing", ...quoted });
  let signature: `0x${string}`;
  try {
    signature = await request.payer.account.signTypedData(toViemTypedData(typedData));
  } catch {
    await deps.ledger.release(quote.nonce);
    request.tracker.releaseRequestBudget(option.amount);
    return fail(quote.id, "payment-failed", "The agent wallet could not sign the payment; nothing was spent.");
  }
  return payAndDeliver(deps, request, quote, typedData, signature);
}

export type ApprovedPayment = {
  service: string;
  url: string;
  method: "GET" | "POST";
  option: PayableRequirement;
  resource: Record<string, unknown> | undefined;
  typedData: ReturnType<typeof buildTransferTypedData>;
  signature: `0x${string}`;
};

/**
 * The second request of the approval flow: the user signed the frozen quote, and the route has
 * already checked signer, terms and expiry. Limits are checked again here, then we pay.
 */
export async function runApprovedPurchase(
  deps: PurchaseDependencies,
  request: Omit<PurchaseRequest, "payer" | "intent" | "url" | "method" | "service"> & { payer: `0x${string}` },
  approved: ApprovedPayment,
): Promise<PurchaseOutcome> {
  const message = approved.typedData.message;
  const nonce = message.nonce as `0x${string}`;
  const quote: Quote = {
    id: paymentIdForNonce(nonce),
    service: approved.service,
    url: approved.url,
    method: approved.method,
    body: request.body,
    option: approved.option,
    paymentRequired: { x402Version: 2, accepts: [], ...(approved.resource ? { resource: approved.resource as { url: string } } : {}) },
    validAfter: BigInt(message.validAfter),
    validBefore: BigInt(message.validBefore),
    nonce,
    payer: request.payer,
  };
  const amount = formatUsdc(approved.option.amount);
  const base = { service: approved.service, resource: approved.url };
  const fail = (reason: PaymentFailureReason, text: string): PurchaseOutcome => {
    request.tracker.update({ id: quote.id, status: "failed", reason, message: text, ...base });
    return { status: "failed", paymentId: quote.id, reason, message: text };
  };
  request.tracker.update({
    id: quote.id,
    status: "quoted",
    ...base,
    amount,
    asset: approved.option.asset,
    network: approved.option.network,
    payTo: approved.option.payTo,
    payer: request.payer,
    message: "You approved this payment.",
  });
  const check = checkPayment({ amount: approved.option.amount, limits: request.limits, spentThisRequest: request.tracker.committedAmount });
  if (!check.ok) return fail("limit-exceeded", `${amount} USDC is over your spending limits; nothing was spent.`);
  const claim = request.tracker.claimRequestBudget(approved.option.amount, request.limits.perRequest, request.maxPayments);
  if (claim !== "ok") return fail("limit-exceeded", `${amount} USDC is over your per-request limits; nothing was spent.`);
  const reserved = await reserveDaily(deps, quote, request);
  if (reserved !== "ok") {
    request.tracker.releaseRequestBudget(approved.option.amount);
    return fail(reserved.reason, reserved.message);
  }
  return payAndDeliver(deps, request, quote, approved.typedData, approved.signature);
}

async function reserveDaily(
  deps: PurchaseDependencies,
  quote: Quote,
  request: Pick<PurchaseRequest, "limits">,
): Promise<"ok" | { reason: PaymentFailureReason; message: string }> {
  try {
    const result = await deps.ledger.reserve({
      payer: quote.payer,
      reservationId: quote.nonce,
      amount: quote.option.amount,
      dailyLimit: request.limits.daily,
    });
    if (result.ok) return "ok";
    return {
      reason: "limit-exceeded",
      message: `${formatUsdc(quote.option.amount)} USDC would go over the daily limit of ${formatUsdc(result.dailyLimit)} USDC (${formatUsdc(result.spent + result.reserved)} USDC used in the last 24 h); nothing was signed.`,
    };
  } catch (error) {
    // Fail closed: without the ledger we cannot know the daily budget.
    const message = AppError.isInstance(error) ? error.safeMessage : "The spending ledger is unavailable.";
    return { reason: "payment-failed", message: `${message} Nothing was signed.` };
  }
}

async function payAndDeliver(
  deps: PurchaseDependencies,
  request: Pick<PurchaseRequest, "tracker" | "deadline" | "signal">,
  quote: Quote,
  typedData: ReturnType<typeof buildTransferTypedData>,
  signature: `0x${string}`,
): Promise<PurchaseOutcome> {
  const tracker = request.tracker;
  const base = { service: quote.service, resource: quote.url };
  const amount = formatUsdc(quote.option.amount);
  const payload = buildPaymentPayload(quote.option, quote.paymentRequired.x402Version === 2 ? quote.paymentRequired.resource : undefined, typedData, signature);
  const headerName = quote.option.x402Version === 1 ? "X-PAYMENT" : "PAYMENT-SIGNATURE";
  const header = encodePaymentSignatureHeader(payload as unknown as Parameters<typeof encodePaymentSignatureHeader>[0]);

  tracker.update({ id: quote.id, status: "verifying", ...base, message: `Paying ${amount} USDC; the service verifies and settles it.` });

  const giveBack = async () => {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    tracker.releaseRequestBudget(quote.option.amount);
  };
  const confirm = async (txHash: `0x${string}`) => {
    await deps.ledger.commit(quote.nonce, { txHash }).catch(() => undefined);
    tracker.update({
      id: quote.id,
      status: "confirmed",
      ...base,
      txHash,
      explorerUrl: explorerTransactionUrl(deps.network, txHash),
      message: `Paid ${amount} USDC.`,
    });
  };

  let response: Response;
  try {
    response = await deps.fetch(quote.url, {
      method: quote.method,
      body: quote.body,
      headers: { ...jsonHeaders(quote.body), [headerName]: header },
      signal: request.signal,
    });
  } catch (error) {
    if (isNeverSent(error)) {
      await giveBack();
      tracker.update({ id: quote.id, status: "failed", reason: "service-unavailable", ...base, message: `${quote.service} could not be reached; nothing was spent.` });
      return { status: "failed", paymentId: quote.id, reason: "service-unavailable", message: `${quote.service} could not be reached; nothing was spent.` };
    }
    return reconcile(deps, request, quote, confirm, giveBack, { message: `${quote.service} did not answer after receiving the payment.` });
  }

  const settlement = readSettlement(response.headers);
  // A service's claim of settlement counts only once the chain shows that transaction using
  // this very authorization; otherwise the chain decides (reconcile).
  const claimed = response.ok && settlement?.success ? settlement.transaction : undefined;
  const proven = claimed ? await deps.chain.transactionUsedAuthorization(claimed, quote.payer, quote.nonce).catch(() => undefined) : undefined;
  if (claimed && proven) {
    await confirm(claimed);
    let data: ServiceData;
    try {
      data = await readServiceData(response);
    } catch {
      const message = `Paid ${amount} USDC, but ${quote.service}'s answer could not be read.`;
      tracker.update({ id: quote.id, status: "failed", reason: "payment-failed", ...base, txHash: claimed, message });
      return { status: "failed", paymentId: quote.id, reason: "payment-failed", message, txHash: claimed };
    }
    tracker.update({ id: quote.id, status: "delivered", ...base, message: `${quote.service} delivered its data.` });
    return { status: "delivered", paymentId: quote.id, service: quote.service, resource: quote.url, amount, txHash: claimed, data };
  }
  await response.body?.cancel().catch(() => undefined);
  // A hash means something was broadcast (e.g. settlement still pending): never a clean refusal.
  const knownTxHash = settlement?.transaction;
  if (claimed) {
    return reconcile(deps, request, quote, confirm, giveBack, { message: `${quote.service} claimed a settlement the chain does not show yet.`, knownTxHash });
  }
  const why = settlement?.errorReason ? ` (${settlement.errorReason})` : "";
  return reconcile(deps, request, quote, confirm, giveBack, {
    message: `${quote.service} refused or failed the payment: HTTP ${response.status}${why}.`,
    refused: response.status === 402 && !knownTxHash,
    knownTxHash,
  });
}

/**
 * After a failed or unanswered paid request, the chain decides. If the authorization was used,
 * the payment happened: it is reported with its hash. If the service clearly refused (402) and
 * the chain shows no use, nothing was spent. Otherwise we watch the chain until the
 * authorization expires (it is valid no longer than the request), or report it as pending.
 */
async function reconcile(
  deps: PurchaseDependencies,
  request: Pick<PurchaseRequest, "tracker" | "deadline">,
  quote: Quote,
  confirm: (txHash: `0x${string}`) => Promise<void>,
  giveBack: () => Promise<void>,
  situation: {
    message: string;
    /** The service clearly refused (402) and reported nothing broadcast. */
    refused?: boolean;
    /** A hash the service reported, shown while the chain is watched. */
    knownTxHash?: `0x${string}`;
  },
): Promise<PurchaseOutcome> {
  const { message, refused = false, knownTxHash } = situation;
  const hash = knownTxHash ? { txHash: knownTxHash } : {};
  const now = deps.now ?? Date.now;
  const base = { service: quote.service, resource: quote.url };
  const interval = deps.reconcileIntervalMs ?? 500;
  let reportedPending = false;
  for (;;) {
    const used = await deps.chain.isAuthorizationUsed(quote.payer, quote.nonce).catch(() => undefined);
    if (used) {
      const txHash = await deps.chain.findAuthorizationTransaction(quote.payer, quote.nonce).catch(() => undefined);
      if (txHash) {
        await confirm(txHash);
        const text = `${message} The payment did settle on chain, but no data was delivered.`;
        request.tracker.update({ id: quote.id, status: "failed", reason: "payment-failed", ...base, txHash, message: text });
        return { status: "failed", paymentId: quote.id, reason: "payment-failed", message: text, txHash };
      }
    }
    if (used === false && (refused || BigInt(Math.floor(now() / 1000)) > quote.validBefore + EXPIRY_MARGIN_SECONDS)) {
      await giveBack();
      const text = `${message} Nothing was spent.`;
      request.tracker.update({ id: quote.id, status: "failed", reason: "payment-failed", ...base, message: text });
      return { status: "failed", paymentId: quote.id, reason: "payment-failed", message: text };
    }
    if (now() + interval >= request.deadline) break;
    if (!reportedPending) {
      reportedPending = true;
      request.tracker.update({ id: quote.id, status: "pending", ...base, ...hash, message: `${message} Watching the chain for the settlement…` });
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  // Still uncertain: keep the reservation (money may yet move) and say so plainly.
  const text = `${message} The settlement is still pending; it was not retried and the amount stays reserved.`;
  request.tracker.update({ id: quote.id, status: "pending", ...base, ...hash, message: text });
  return { status: "pending", paymentId: quote.id, message: text, ...hash };
}

/** Payment ids derive from the nonce, so both requests of an approval name the same payment. */
export function paymentIdForNonce(nonce: string): string {
  return `pay_${nonce.slice(2, 18)}`;
}

function jsonHeaders(body: string | undefined): Record<string, string> {
  return body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    const text = await response.text();
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

/** Errors raised before the request left this machine: the signature was never disclosed. */
function isNeverSent(error: unknown): boolean {
  const code = errorCode(error);
  return code === "connect_failed" || code === "blocked_address" || code === "blocked_scheme" || code === "credentials_in_url" || code === "invalid_url";
}

function describeFetchError(error: unknown): string {
  switch (errorCode(error)) {
    case "connect_failed":
      return "connection refused";
    case "timeout":
      return "timed out";
    case "blocked_address":
      return "address not allowed";
    default:
      return "network error";
  }
}
