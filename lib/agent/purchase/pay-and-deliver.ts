/**
 * Sends the signed payment to the service and turns its answer into an outcome. From the
 * moment the request may have reached the service, the authorization is treated as money
 * possibly spent: only a settlement the chain shows, or the chain's proof that the
 * authorization expired unused, ends the reservation. A refusal before any byte left this
 * machine is the only failure that gives the budget back at once.
 */
import { formatUsdc } from "../../money";
import { timeoutSignal } from "../../timeout";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import type { OutgoingPaymentPayload } from "../../x402/payment-payload";
import { parseSettlement } from "../../x402/read-settlement";
import { describeFetchFailure } from "./http-call";
import { provePayment } from "./prove-payment";
import type { PaidAnswer, PaidRequest, PurchaseDependencies, PurchaseOutcome, Quote } from "./purchase-types";
import { sendOverHttp } from "./send-with-payment";
import type { QuoteTypedData } from "./schemes/payment-scheme";
import { schemeOf } from "./schemes/payment-schemes";
import { meteredOutcome, settledFields } from "./upto-settlement";
import { deliverUncharged } from "./upto-uncharged";
import { reportConfirmed, reportFailure, subjectOf } from "./report-payment";
import { readServiceData, type ServiceData } from "./service-data";
import { deliveredReceipt } from "./delivered-receipt";
import { describePaymentRefusal } from "../../x402/refusal-words";
import { deliveredResultOf } from "../../stream/delivered-result";

export async function payAndDeliver(
  deps: PurchaseDependencies,
  request: PaidRequest,
  quote: Quote,
  typedData: QuoteTypedData,
  signature: `0x${string}`,
): Promise<PurchaseOutcome> {
  const { tracker } = request;
  const now = deps.now;
  const amount = formatUsdc(quote.option.amount);
  const scheme = schemeOf(quote.option);
  const payload = scheme.payload(quote, typedData, signature);
  const giveBack = async () => {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    tracker.releaseRequestBudget(quote.option.amount);
  };

  const paying = request.funded ? `${scheme.words.paying(amount)} ${request.funded}` : scheme.words.paying(amount);
  tracker.update({ id: quote.id, status: "verifying", service: quote.service, resource: quote.url, message: paying });
  // Nothing leaves before the journal says it is about to.
  if (!(await tracker.recorded())) {
    await giveBack();
    return reportFailure(tracker, subjectOf(quote), "payment-failed", "The payment journal is unavailable, so the payment was not sent to the service.");
  }

  // An agent authorization is useless to the service after validBefore, and its proof must fit
  // in the request, so the paid request ends by then; a user's waits no longer than the request.
  const endsAt = quote.payerKind === "agent" ? Math.min(Number(quote.validBefore) * 1000, request.deadline) : request.deadline;
  const timeout = timeoutSignal(Math.max(1, endsAt - now()));
  try {
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    return await sendAndDeliver(deps, request, quote, payload, signal, giveBack);
  } finally {
    timeout.clear();
  }
}

/** The paid request and its answer: delivered data, or the chain's word on the payment. */
async function sendAndDeliver(
  deps: PurchaseDependencies,
  request: PaidRequest,
  quote: Quote,
  payment: OutgoingPaymentPayload,
  signal: AbortSignal,
  giveBack: () => Promise<void>,
): Promise<PurchaseOutcome> {
  const { tracker } = request;
  const amount = formatUsdc(quote.option.amount);
  const scheme = schemeOf(quote.option);
  const send = request.send ?? sendOverHttp(deps.fetch);
  let answer: PaidAnswer;
  try {
    answer = await send({ service: quote.service, url: quote.url, method: quote.method, body: quote.body, contentType: quote.contentType, payment, signal });
  } catch (error) {
    if (GuardedFetchError.isInstance(error) && !error.requestMayHaveArrived) {
      await giveBack();
      return reportFailure(
        tracker,
        subjectOf(quote),
        "service-unavailable",
        `${quote.service} could not be reached; the payment never left, so nothing was spent.`,
      );
    }
    return provePayment(deps, request, quote, giveBack, {
      message: `${quote.service} did not answer after receiving the payment (${describeFetchFailure(error)}).`,
    });
  }

  const response = answer.content;
  const settlement = parseSettlement(answer.settlement);
  // A service's claim of settlement counts only once the chain shows that transaction using
  // this very authorization; otherwise the chain decides.
  const claimed = answer.delivered && settlement?.success ? settlement.transaction : undefined;
  const proof = claimed ? scheme.proveSettlement(deps.chain, quote, claimed).catch(() => undefined) : undefined;
  // What a metered service says it used, from a copy of its answer (the answer goes to the model).
  const metering = claimed ? scheme.readUsage(() => response.clone()) : undefined;
  // The receipt's signature is recovered (about 2-3 ms of CPU) while the chain is asked (I/O):
  // started a turn of the event loop later, once the chain request has gone out, and used only
  // once the proof holds.
  const receiptCheck = claimed
    ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliveredReceipt(deps, quote, answer.settlement, claimed)).catch(() => ({}))
    : undefined;
  const proven = await proof;
  if (claimed && proven) {
    // A metered payment counts what the chain shows it moved, held against the service's word.
    const settled = scheme.settled(quote, proven.amount, { metering: await metering, reported: settlement?.amount });
    await reportConfirmed(deps, tracker, quote, claimed, settled);
    const paid = settled?.review.amount ?? amount;
    let data: ServiceData;
    try {
      data = await readServiceData(response);
    } catch {
      return reportFailure(tracker, subjectOf(quote), "payment-failed", `Paid ${paid} USDC, but ${quote.service}'s answer could not be read.`, claimed);
    }
    const receipt = (await receiptCheck) ?? {};
    tracker.update({
      id: quote.id,
      status: "delivered",
      service: quote.service,
      resource: quote.url,
      message: `${quote.service} delivered its data.`,
      ...settledFields(settled),
      ...receipt,
      ...deliveredResultOf(data, quote),
    });
    return {
      status: "delivered",
      paymentId: quote.id,
      service: quote.service,
      resource: quote.url,
      amount: paid,
      txHash: claimed,
      data,
      ...meteredOutcome(settled),
    };
  }
  const knownTxHash = settlement?.transaction;
  if (claimed) {
    await response.body?.cancel().catch(() => undefined);
    return provePayment(deps, request, quote, giveBack, { message: `${quote.service} claimed a settlement the chain does not show.`, knownTxHash });
  }
  // A metered service that used nothing settles nothing (no transaction); its permit stays
  // usable until its deadline, so the answer is delivered once the chain shows it unused.
  if (scheme.settlesNothingWhenUnused && answer.delivered && settlement?.success && settlement.amount === 0n && !settlement.transaction) {
    return deliverUncharged(deps, request, quote, response, giveBack);
  }
  // Any other answer (402 included) comes after the service held the signature: it may still
  // settle it, now or later, so the chain decides. Its stated reason only explains the wait.
  const refusal = await answer.refusal();
  await response.body?.cancel().catch(() => undefined);
  const message = refusal ? describePaymentRefusal(quote.service, refusal) : answer.description;
  return provePayment(deps, request, quote, giveBack, { message, knownTxHash });
}
