/**
 * Stage 7-8 of a purchase for a channel (`batch-settlement`) option, after the checks of stage
 * 4: the call takes its turn on the channel (in this process, then the ledger's lease across
 * instances), the ledger reserves its price in the budgets and returns the next cumulative
 * amount, or asks for a deposit first (sized here, reserved like a payment); then one leased call
 * (channel-call.ts). The journal rows are the ledger's own (its statements write them), so the
 * steps are shown in the stream and not journaled again here.
 */
import { createHash } from "node:crypto";
import type { AcquireResult, ChannelBudgets, ChannelJournalFacts, ChannelLedger } from "../../../channels/channel-ledger";
import type { PaymentFailureReason } from "../../../stream";
import { channelTermsOf } from "../../../x402/schemes/batch-settlement-offer";
import type { Payer, PurchaseDependencies, PurchaseOutcome, PurchaseRequest, Quote } from "../purchase-types";
import type { ChannelAccess } from "../quote-stage";
import { claimRequest, dailyBudgetsOf, dailyRefusal } from "../reserve-budget";
import { callOnLease, type LeasedCall } from "./channel-call";
import { inTurn } from "./channel-queue";
import { rememberChannel, startEarlyTurn, type EarlyTurn, type TurnWork } from "./early-turn";
import { channelOf, channelSigner } from "./channel-wire";
import { depositSize } from "./deposit-size";

/** The longest one call holds its channel: a crashed instance's lease ends by then. */
const MAX_LEASE_MS = 120_000;

/** Whether this purchase may pay through a channel, and why not. */
export function channelAccessOf(deps: Pick<PurchaseDependencies, "channels">, payer: { kind: Payer["kind"]; funding?: unknown }): ChannelAccess {
  if (!deps.channels) return { ok: false, reason: "this deployment keeps no channel ledger (payment channels need the database store)" };
  if (payer.kind === "user") return { ok: false, reason: "payment channels are paid by the agent wallet, not from a person's own wallet" };
  if (payer.funding) return { ok: false, reason: "a grant's payer does not pay through payment channels yet" };
  return { ok: true };
}

/** The budgets a channel call counts against: the payer's cap, the caller's scope and pool. */
export function channelBudgetsOf(payer: `0x${string}`, limits: PurchaseRequest["limits"]): ChannelBudgets {
  const budgets = dailyBudgetsOf(limits);
  return { payer, payerLimit: budgets.payerLimit, ...(budgets.scope ? { scope: budgets.scope } : {}), ...(budgets.pool ? { pool: budgets.pool } : {}) };
}

/**
 * The early turn of a purchase (early-turn.ts): started beside its unpaid request where this
 * instance's last purchase of the URL by this payer paid through a channel, journaled under the
 * purchase's provisional id. Undefined where this payer cannot pay through channels.
 */
export function startChannelTurnEarly(deps: PurchaseDependencies, request: PurchaseRequest, paymentId: string): EarlyTurn | undefined {
  const { payer } = request;
  if (!deps.channels || payer.kind !== "agent" || payer.funding) return undefined;
  return startEarlyTurn({
    ledger: deps.channels,
    // Made only where a channel is remembered and an option is to be matched, not on every purchase.
    channelIdOf: (option) => channelOf(channelSigner(payer.account, deps.chain), { option, payer: payer.account.address, url: request.url }).identity.channelId,
    payer: payer.account.address,
    url: request.url,
    budgets: channelBudgetsOf(payer.account.address, request.limits),
    journal: { paymentId, payerKind: "agent", service: request.service, resource: request.url, ...request.tracker.journalKeys },
    leaseMs: leaseMsFor(deps, request),
    ...(deps.log ? { log: deps.log } : {}),
  });
}

/** How long a call's lease lasts: its request's time left, at most MAX_LEASE_MS. */
function leaseMsFor(deps: PurchaseDependencies, request: PurchaseRequest): number {
  return Math.max(1, Math.min(request.deadline - deps.now(), MAX_LEASE_MS));
}

export async function payThroughChannel(deps: PurchaseDependencies, request: PurchaseRequest, quote: Quote, early?: EarlyTurn): Promise<PurchaseOutcome> {
  const { tracker } = request;
  const price = quote.option.amount;
  let claimed = false;
  const fail = (reason: PaymentFailureReason, message: string, released: boolean): PurchaseOutcome => {
    if (released && claimed) tracker.releaseRequestBudget(price);
    claimed = claimed && !released;
    tracker.journaledElsewhere({ id: quote.id, status: "failed", reason, message, service: quote.service, resource: quote.url });
    return { status: "failed", paymentId: quote.id, reason, message };
  };
  const ledger = deps.channels;
  if (!ledger || request.payer.kind !== "agent" || request.payer.funding) {
    return fail("payment-failed", `${quote.service} is paid through a payment channel, which this payer cannot use; nothing was signed.`, false);
  }
  const refused = claimRequest(request, price, "nothing was signed");
  if (refused) return fail(refused.reason, refused.message, false);
  claimed = true;
  const signer = channelSigner(request.payer.account, deps.chain);
  const channel = channelOf(signer, quote);
  const budgets = channelBudgetsOf(quote.payer, request.limits);
  const onTurn: TurnWork<PurchaseOutcome> = async (holdTurn, first) => {
    const acquired = await acquireInTime(
      deps,
      ledger,
      request,
      { identity: channel.identity, price, budgets, reservationId: quote.nonce, journal: journalFacts(request, quote) },
      first,
    );
    if (acquired.status === "deadline") {
      return fail("deadline", `${quote.service}'s payment channel stayed busy with other calls until this request's time ran out; nothing was signed.`, true);
    }
    if (acquired.status === "unavailable") return fail("payment-failed", "The channel ledger is unavailable, so no payment is made; nothing was signed.", true);
    if (acquired.status === "withdrawing") {
      const message = `${quote.service}'s payment channel is being withdrawn (the service did not refund its deposit), so it takes no more calls; nothing was signed.`;
      return fail("payment-failed", message, true);
    }
    if (acquired.status === "refused") {
      const words = dailyRefusal(acquired, price, request.limits, "nothing was signed");
      return fail(words.reason, words.message, true);
    }
    const base = { deps, ledger, request, quote, signer, channel, lease: acquired.lease, fail, holdTurn };
    if (acquired.status === "voucher") {
      const { channel: state } = acquired;
      return callOnLease({ ...base, state: { ...state, charged: acquired.cumulative - price } });
    }
    const deposit = await reserveDeposit(base, acquired, budgets);
    return "outcome" in deposit ? deposit.outcome : callOnLease({ ...base, state: deposit.state, deposit: deposit.deposit });
  };
  // The quote took the early turn's nonce where its option fits that turn (run-purchase.ts).
  let outcome: PurchaseOutcome;
  if (early && early.reservationId === quote.nonce) outcome = await early.take(onTurn);
  else {
    await early?.release();
    outcome = await inTurn(ledger, channel.identity.channelId, (holdTurn) => onTurn(holdTurn));
  }
  // Remembered once delivered: the next purchase of this URL takes the channel's turn early,
  // and knows its payee was paid.
  if (outcome.status === "delivered") rememberChannel(quote.payer, quote.url, { identity: channel.identity, price });
  return outcome;
}

type Acquired = Exclude<AcquireResult, { status: "busy" }> | { status: "deadline" } | { status: "unavailable" } | { status: "withdrawing" };

/** Acquire (or take the early turn's acquisition first), waiting out `busy` answers (another instance's call on the channel) until the request's deadline. */
async function acquireInTime(
  deps: PurchaseDependencies,
  ledger: ChannelLedger,
  request: PurchaseRequest,
  input: Omit<Parameters<ChannelLedger["acquire"]>[0], "leaseMs">,
  first?: Promise<AcquireResult | { status: "unavailable" }>,
): Promise<Acquired> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let early = first;
  for (;;) {
    if (request.deadline - deps.now() <= 0 && !early) return { status: "deadline" };
    let result: AcquireResult;
    try {
      const answer = await (early ?? ledger.acquire({ ...input, leaseMs: leaseMsFor(deps, request) }));
      if (answer.status === "unavailable") return answer;
      result = answer;
    } catch {
      return { status: "unavailable" };
    }
    early = undefined;
    if (result.status !== "busy") return result;
    // A withdrawal takes the channel for its whole delay: no use waiting for it.
    if (result.withdrawing) return { status: "withdrawing" };
    const left = request.deadline - deps.now();
    if (left <= 0) return { status: "deadline" };
    await sleep(Math.max(1, Math.min(result.retryInMs, left)));
  }
}

/**
 * The deposit this call opens (or tops up) the channel with: sized by the strategy within the
 * ledger's room and the wallet's balance, then reserved in the budgets under the lease.
 */
async function reserveDeposit(
  call: Omit<LeasedCall, "state" | "deposit">,
  acquired: Extract<AcquireResult, { status: "deposit-needed" }>,
  budgets: ChannelBudgets,
): Promise<{ outcome: PurchaseOutcome } | { state: LeasedCall["state"]; deposit: NonNullable<LeasedCall["deposit"]> }> {
  const { deps, ledger, quote, lease } = call;
  const channelId = call.channel.identity.channelId;
  const price = quote.option.amount;
  const known = acquired.channel;
  const state = {
    charged: known?.charged ?? 0n,
    deposited: known?.deposited ?? 0n,
    signedMax: known?.signedMax ?? 0n,
    totalClaimed: known?.totalClaimed ?? 0n,
  };
  const giveUp = async (reason: PaymentFailureReason, message: string) => {
    await ledger.abandon({ channelId, lease, reservationId: quote.nonce, spent: "nothing" }).catch(() => undefined);
    return { outcome: call.fail(reason, message, true) };
  };
  const balance = await deps.chain.balanceOf(quote.payer).catch(() => undefined);
  if (balance === undefined)
    return giveUp("payment-failed", "The wallet's balance could not be read from the chain, so no deposit is made; nothing was signed.");
  const size = depositSize({
    price,
    ...(deps.channelDepositCalls === undefined ? {} : { calls: deps.channelDepositCalls }),
    minDeposit: channelTermsOf(quote.option).minDeposit,
    needed: state.charged + price - state.deposited,
    room: acquired.room,
    balance,
  });
  if (!size.ok) return giveUp(size.reason, `${size.text}; nothing was signed.`);
  const reservationId = depositReservationId(quote.nonce);
  let reserved: Awaited<ReturnType<ChannelLedger["reserveDeposit"]>>;
  try {
    const journal = { ...journalFacts(call.request, quote), paymentId: `${quote.id}:deposit` };
    reserved = await ledger.reserveDeposit({ channelId, lease, amount: size.amount, budgets, reservationId, journal });
  } catch {
    return giveUp("payment-failed", "The channel ledger is unavailable, so no deposit is made; nothing was signed.");
  }
  if ("status" in reserved) {
    const words = dailyRefusal(reserved, size.amount, call.request.limits, "nothing was signed");
    return giveUp(words.reason, `A deposit to open the channel: ${words.message}`);
  }
  return { state, deposit: { amount: size.amount, reservationId } };
}

/** What the ledger's journal rows of this call say beside the channel's facts: the stream's payment id and the request. */
function journalFacts(request: PurchaseRequest, quote: Quote): ChannelJournalFacts {
  return { paymentId: quote.id, payerKind: "agent", service: quote.service, resource: quote.url, ...request.tracker.journalKeys };
}

/** A deposit's reservation id, derived from the call's own so the two are found together. */
export function depositReservationId(reservationId: string): string {
  return `0x${createHash("sha256").update(`${reservationId}:deposit`).digest("hex")}`;
}
