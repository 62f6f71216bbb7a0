/**
 * One paid call on a leased channel: sign (a deposit with its first voucher, or a voucher for
 * the next cumulative amount), send with the transport's "send with payment", and tell the ledger
 * how it ended before the lease is given back: `settle` with what the service charged, `resync`
 * and one retry on a corrective 402, `abandon` otherwise ("nothing" when the service cannot have
 * charged, "unknown" when it may have).
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { ChannelIdentity, ChannelLedger, ChannelState } from "../../../channels/channel-ledger";
import { formatUsdc } from "../../../money";
import type { PaymentFailureReason } from "../../../stream";
import { GuardedFetchError } from "../../../net/guarded-fetch-error";
import { deliveredResultOf } from "../../../stream/delivered-result";
import { timeoutSignal } from "../../../timeout";
import { describePaymentRefusal } from "../../../x402/refusal-words";
import { describeFetchFailure } from "../http-call";
import type { PaidAnswer, PurchaseDependencies, PurchaseOutcome, PurchaseRequest, Quote } from "../purchase-types";
import { sendOverHttp } from "../send-with-payment";
import { readServiceData } from "../service-data";
import { channelAbsentOnChain, correctedState, depositPayload, readChannelAnswer, voucherPayload, type ChannelSigner } from "./channel-wire";
import type { HoldTurn } from "./channel-queue";
import { channelWords } from "./channel-words";

/** What a call on a lease works with. */
export type LeasedCall = {
  deps: PurchaseDependencies;
  ledger: ChannelLedger;
  request: PurchaseRequest;
  quote: Quote;
  signer: ChannelSigner;
  channel: { identity: ChannelIdentity; requirements: PaymentRequirements };
  lease: string;
  /** The channel as the ledger knows it now (undefined: a new channel). */
  state: Omit<ChannelState, "channelId" | "state">;
  /** A deposit reserved for this call (its amount and reservation), sent with the first voucher. */
  deposit?: { amount: bigint; reservationId: string };
  /** Set on the one retry after a corrective 402: what the service proved, said with the payment. */
  correction?: string;
  /** Keeps the channel's turn in this instance until the given statement has finished (channel-queue.ts). */
  holdTurn: HoldTurn;
  /** Fails the call in the stream and the outcome; `released` gives back this request's claim on the price. */
  fail(reason: PaymentFailureReason, message: string, released: boolean): PurchaseOutcome;
};

/** Signs, sends and records the call; a corrective 402 resyncs the channel and retries once. */
export async function callOnLease(call: LeasedCall, retried = false): Promise<PurchaseOutcome> {
  const { deps, ledger, request, quote, signer, channel, lease, state, deposit } = call;
  const { tracker } = request;
  const price = quote.option.amount;
  const channelId = channel.identity.channelId;
  const cumulative = state.charged + price;
  const words = channelWords(quote, channelId, cumulative, deposit?.amount);
  const abandon = (spent: "nothing" | "unknown") =>
    ledger
      .abandon({ channelId, lease, reservationId: quote.nonce, ...(deposit ? { depositReservationId: deposit.reservationId } : {}), spent })
      .catch((error: unknown) => deps.log?.({ level: "error", event: "channel-abandon-failed", channelId, error: String(error) }));

  // A retry after a corrective 402 is the same step again: the stream only moves forward.
  if (!retried) tracker.journaledElsewhere({ id: quote.id, status: "signing", service: quote.service, resource: quote.url, message: words.signing });
  let signed: { payment: Awaited<ReturnType<typeof voucherPayload>>["payment"]; signature: `0x${string}` };
  try {
    signed = deposit ? await depositPayload(signer, quote, channel, deposit.amount, cumulative) : await voucherPayload(signer, quote, channel, cumulative);
  } catch {
    await abandon("nothing");
    return call.fail("payment-failed", "The agent wallet could not sign the channel payment; nothing was spent.", true);
  }

  if (!retried) tracker.journaledElsewhere({ id: quote.id, status: "verifying", service: quote.service, resource: quote.url, message: words.paying });
  const send = request.send ?? sendOverHttp(deps.fetch);
  const timeout = timeoutSignal(Math.max(1, request.deadline - deps.now()));
  let answer: PaidAnswer;
  try {
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    answer = await send({
      service: quote.service,
      url: quote.url,
      method: quote.method,
      body: quote.body,
      contentType: quote.contentType,
      payment: signed.payment,
      signal,
    });
  } catch (error) {
    if (GuardedFetchError.isInstance(error) && !error.requestMayHaveArrived) {
      await abandon("nothing");
      return call.fail("service-unavailable", `${quote.service} could not be reached; the ${words.what} never left, so nothing was spent.`, true);
    }
    await abandon("unknown");
    return call.fail(
      "service-unavailable",
      `${quote.service} did not answer after receiving the ${words.what} (${describeFetchFailure(error)}); ${words.unknown}`,
      false,
    );
  } finally {
    timeout.clear();
  }

  if (answer.delivered) return delivered(call, answer, signed.signature, words);

  // A corrective 402: the service proves (by this wallet's own last voucher) that it counted a
  // different amount; adopt its state and pay once more on the same lease.
  const corrected = !retried && answer.refused ? await correctedState(signer, channelId, answer.paymentRequired) : undefined;
  if (corrected && corrected.charged + price <= corrected.deposited + (deposit?.amount ?? 0n)) {
    await answer.content.body?.cancel().catch(() => undefined);
    try {
      await ledger.resync({ channelId, lease, channel: corrected });
    } catch {
      await abandon("unknown");
      return call.fail("payment-failed", `${quote.service} corrected the channel's state and the channel ledger could not record it; ${words.unknown}`, false);
    }
    deps.log?.({ level: "info", event: "channel-corrected", paymentId: quote.id, channelId, charged: corrected.charged.toString() });
    return callOnLease({ ...call, state: corrected, correction: words.corrected(corrected.charged) }, true);
  }
  const refusal = await answer.refusal();
  await answer.content.body?.cancel().catch(() => undefined);
  const said = refusal ? describePaymentRefusal(quote.service, refusal) : answer.description;
  // A payment request instead of an answer: the service did not count the voucher (nor take a deposit).
  if (answer.refused) {
    const forgotten = refusal?.reason === CHANNEL_NOT_FOUND && !deposit ? await forgetAbsentChannel(call) : false;
    await abandon("nothing");
    return call.fail("payment-failed", `${said} The ${words.what} was refused, so nothing was spent.${forgotten ? ` ${words.forgotten}` : ""}`, true);
  }
  await abandon("unknown");
  return call.fail("payment-failed", `${said} ${words.unknown}`, false);
}

/** The scheme's error code for a voucher on a channel the chain does not hold. */
const CHANNEL_NOT_FOUND = "invalid_batch_settlement_evm_channel_not_found";

/**
 * A service that finds no such channel on chain, where the chain indeed holds nothing for it: the
 * ledger's channel is set empty under the call's lease (`resync` to nothing charged, nothing
 * deposited), so the next call opens it again with a deposit instead of every call being refused
 * the same way. Where the chain holds something, or cannot be read, the ledger is left as it is.
 */
async function forgetAbsentChannel(call: LeasedCall): Promise<boolean> {
  const { deps, ledger, signer, channel, lease } = call;
  const channelId = channel.identity.channelId;
  if (!(await channelAbsentOnChain(signer, channelId))) return false;
  try {
    await ledger.resync({ channelId, lease, channel: { charged: 0n, deposited: 0n, totalClaimed: 0n, signedMax: 0n } });
  } catch {
    return false;
  }
  deps.log?.({ level: "warn", event: "channel-absent-on-chain", paymentId: call.quote.id, channelId });
  return true;
}

async function delivered(call: LeasedCall, answer: PaidAnswer, signature: `0x${string}`, words: ReturnType<typeof channelWords>): Promise<PurchaseOutcome> {
  const { deps, ledger, request, quote, channel, lease, state, deposit } = call;
  const { tracker } = request;
  const channelId = channel.identity.channelId;
  const price = quote.option.amount;
  const cumulative = state.charged + price;
  const read = await readChannelAnswer(call.signer, { channelId, charged: state.charged, deposited: state.deposited }, answer.settlement, {
    price,
    ...(deposit ? { deposit: deposit.amount } : {}),
  }).catch(() => undefined);
  if (!read) {
    await answer.content.body?.cancel().catch(() => undefined);
    await ledger
      .abandon({ channelId, lease, reservationId: quote.nonce, ...(deposit ? { depositReservationId: deposit.reservationId } : {}), spent: "unknown" })
      .catch(() => undefined);
    return call.fail("payment-failed", `${quote.service} answered without a channel settlement this agent can read; ${words.unknown}`, false);
  }
  const depositTx = deposit ? read.depositTx : undefined;
  // The commit is off the hot path: the answer goes back while the statement runs. The call
  // keeps the channel's turn until it has finished (the next call signs on the charge it
  // records), and the request's `recorded()` waits for it before the turn or the MCP answer ends.
  const settled = ledger
    .settle({
      channelId,
      lease,
      reservationId: quote.nonce,
      charged: read.charged,
      chargedAmount: read.chargedAmount,
      signedMax: cumulative,
      signature,
      ...(deposit && depositTx ? { deposit: { total: state.deposited + deposit.amount, txHash: depositTx, reservationId: deposit.reservationId } } : {}),
      ...(read.totalClaimed === undefined ? {} : { totalClaimed: read.totalClaimed }),
    })
    .catch((error: unknown) => {
      // The service charged; the reservation still holds the price, so the budget stays safe, and
      // the lease runs out on its own. The log says why the ledger is behind.
      deps.log?.({ level: "error", event: "channel-settle-failed", paymentId: quote.id, channelId, error: String(error) });
      throw error;
    });
  call.holdTurn(settled);
  tracker.recordedBy(settled);
  const paid = formatUsdc(read.chargedAmount);
  const hash = depositTx ? { txHash: depositTx } : {};
  tracker.journaledElsewhere({
    id: quote.id,
    status: "confirmed",
    service: quote.service,
    resource: quote.url,
    ...hash,
    message: `${call.correction ? `${call.correction} ` : ""}${words.paid(read.chargedAmount)}`,
  });
  let data;
  try {
    data = await readServiceData(answer.content);
  } catch {
    return call.fail("payment-failed", `Paid ${paid} USDC by ${words.what}, but ${quote.service}'s answer could not be read.`, false);
  }
  tracker.journaledElsewhere({
    id: quote.id,
    status: "delivered",
    service: quote.service,
    resource: quote.url,
    message: `${quote.service} delivered its data.`,
    ...deliveredResultOf(data, quote),
  });
  return {
    status: "delivered",
    paymentId: quote.id,
    service: quote.service,
    resource: quote.url,
    amount: paid,
    txHash: depositTx ?? "",
    data,
    voucher: { channelId, cumulative: cumulative.toString() },
  };
}
