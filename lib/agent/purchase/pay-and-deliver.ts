/**
 * Sends the signed payment to the service and turns its answer into an outcome. From the
 * moment the request may have reached the service, the authorization is treated as money
 * possibly spent: only a settlement the chain shows, or the chain's proof that the
 * authorization expired unused, ends the reservation. A refusal before any byte left this
 * machine is the only failure that gives the budget back at once.
 */
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { formatUsdc } from "../../money";
import { timeoutSignal } from "../../timeout";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { readSettlement } from "../../x402/read-settlement";
import { DEFAULT_CONTENT_TYPE, type RequestContentType } from "../../x402/request-body";
import { provePayment } from "./prove-payment";
import type { PaidRequest, PurchaseDependencies, PurchaseOutcome, Quote } from "./purchase-types";
import type { QuoteTypedData } from "./schemes/payment-scheme";
import { schemeOf } from "./schemes/payment-schemes";
import { meteredOutcome, settledFields } from "./upto-settlement";
import { deliverUncharged } from "./upto-uncharged";
import { reportConfirmed, reportFailure, subjectOf } from "./report-payment";
import { readServiceData, type ServiceData } from "./service-data";
import { deliveredReceipt } from "./delivered-receipt";
import { readResponseRefusal } from "../../x402/payment-refusal";
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
  const headerName = quote.option.x402Version === 1 ? "X-PAYMENT" : "PAYMENT-SIGNATURE";
  const header = encodePaymentSignatureHeader(payload as unknown as Parameters<typeof encodePaymentSignatureHeader>[0]);
  const giveBack = async () => {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    tracker.releaseRequestBudget(quote.option.amount);
  };

  tracker.update({ id: quote.id, status: "verifying", service: quote.service, resource: quote.url, message: scheme.words.paying(amount) });
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
    return await sendAndDeliver(deps, request, quote, { header: headerName, value: header }, signal, giveBack);
  } finally {
    timeout.clear();
  }
}

/** The paid request and its answer: delivered data, or the chain's word on the payment. */
async function sendAndDeliver(
  deps: PurchaseDependencies,
  request: PaidRequest,
  quote: Quote,
  paymentHeader: { header: string; value: string },
  signal: AbortSignal,
  giveBack: () => Promise<void>,
): Promise<PurchaseOutcome> {
  const { tracker } = request;
  const amount = formatUsdc(quote.option.amount);
  const scheme = schemeOf(quote.option);
  let response: Response;
  try {
    response = await sendWithProof(deps.fetch, quote, paymentHeader, signal);
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

  const settlement = readSettlement(response.headers);
  // A service's claim of settlement counts only once the chain shows that transaction using
  // this very authorization; otherwise the chain decides.
  const claimed = response.ok && settlement?.success ? settlement.transaction : undefined;
  const proof = claimed ? scheme.proveSettlement(deps.chain, quote, claimed).catch(() => undefined) : undefined;
  // What a metered service says it used, from a copy of its answer (the answer goes to the model).
  const metering = claimed ? scheme.readUsage(() => response.clone()) : undefined;
  // The receipt's signature is recovered (about 2-3 ms of CPU) while the chain is asked (I/O):
  // started a turn of the event loop later, once the chain request has gone out, and used only
  // once the proof holds.
  const receiptCheck = claimed
    ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliveredReceipt(deps, quote, response.headers, claimed)).catch(() => ({}))
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
  if (scheme.settlesNothingWhenUnused && response.ok && settlement?.success && settlement.amount === 0n && !settlement.transaction) {
    return deliverUncharged(deps, request, quote, response, giveBack);
  }
  // Any other answer (402 included) comes after the service held the signature: it may still
  // settle it, now or later, so the chain decides. Its stated reason only explains the wait.
  const refusal = await readResponseRefusal(response);
  await response.body?.cancel().catch(() => undefined);
  const message = refusal
    ? describePaymentRefusal(quote.service, refusal)
    : (request.describeAnswer?.(response) ?? `${quote.service} answered HTTP ${response.status} to the payment.`);
  return provePayment(deps, request, quote, giveBack, { message, knownTxHash });
}

/**
 * Sends a call once with one proof header (a payment or a sign-in). The proof is for this URL
 * only: the request follows no redirect, which is an answer, not a place to send the proof.
 */
export function sendWithProof(
  fetch: PurchaseDependencies["fetch"],
  call: { url: string; method: string; body?: string; contentType?: RequestContentType },
  proof: { header: string; value: string },
  signal: AbortSignal | undefined,
): Promise<Response> {
  return fetch(call.url, {
    method: call.method,
    body: call.body,
    headers: { ...requestHeaders(call.body, call.contentType), [proof.header]: proof.value },
    redirect: "manual",
    signal,
  });
}

/** The headers of a call to a service: the body's content type is the one its quote covers. */
export function requestHeaders(body: string | undefined, contentType: RequestContentType | undefined): Record<string, string> {
  return body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": contentType ?? DEFAULT_CONTENT_TYPE };
}

/** Why an outbound request failed, in a few words for people (never a URL or an address). */
export function describeFetchFailure(error: unknown): string {
  const guarded = GuardedFetchError.find(error);
  switch (guarded?.code) {
    case "timeout":
      return "timed out";
    case "connect_failed":
      return "connection refused";
    case "connection_lost":
      return "the connection failed";
    case "blocked_address":
    case "blocked_scheme":
      return guarded.requestMayHaveArrived ? "it redirected to a refused address" : "address not allowed";
    case "infrastructure":
      return guarded.requestMayHaveArrived
        ? "it redirected to the payment network's own server, which is not a service"
        : "this is the payment network's own server, not a service";
    case undefined:
      // Our own time limit on the paid request aborts it with a TimeoutError.
      return error instanceof Error && error.name === "TimeoutError" ? "timed out" : "the request was stopped";
    default:
      return "network error";
  }
}
