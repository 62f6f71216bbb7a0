import "server-only";
/**
 * One purchase from a paid x402 service, from the first request to the delivered data:
 * ask → read the 402 → freeze a quote → check limits and balance → reserve → sign (or ask the
 * user to) → pay and deliver (pay-and-deliver.ts) → prove the outcome (prove-payment.ts).
 * Every stage is reported as it happens. Limits are decided here, in code, before any
 * signature exists.
 */
import { createHash } from "node:crypto";
import { formatUsdc } from "../../money";
import { MAX_APPROVAL_BODY_CHARS } from "../../stream";
import { quoteNonce } from "../../x402/authorization-nonce";
import { DEFAULT_CONTENT_TYPE } from "../../x402/request-body";
import { askWithoutPaying } from "./ask-without-paying";
import { chooseOption, optionProblems, paymentProblems, readinessOf } from "./quote-stage";
import { journalTerms, schemeOf } from "./schemes/payment-schemes";
import { quoteWindow } from "./authorization-window";
import { fundPayer } from "./fund-payer";
import { payAndDeliver } from "./pay-and-deliver";
import { paymentIdForNonce, type PurchaseDependencies, type PurchaseOutcome, type PurchaseRequest, type Quote } from "./purchase-types";
import { reportFailure, subjectOf, type Subject } from "./report-payment";
import { reserveBudget } from "./reserve-budget";
import { offerSignIn, signInInstead } from "./sign-in-instead";
import { readServiceData } from "./service-data";
import { echoedExtensions } from "../../x402/echo-extensions";
import { extensionsThatFit } from "../../x402/payment-signature-header";
import { resourceInfoOf } from "../../stream/extension-echo-bounds";
import { identifiedOutcome } from "./retry-safety";
import { approvalRequest } from "./approval-for-quote";
import { quotedStep } from "./quoted-step";
import { channelAccessOf, payThroughChannel, startChannelTurnEarly } from "./channels/pay-through-channel";
import type { EarlyTurn } from "./channels/early-turn";
import { payerBalance, rememberChosenOption } from "./balance-first";

export { MIN_PAYMENT_WINDOW_SECONDS } from "./authorization-window";
export { runApprovedPurchase } from "./run-approved-purchase";
export * from "./purchase-types";

export async function runPurchase(deps: PurchaseDependencies, request: PurchaseRequest): Promise<PurchaseOutcome> {
  const provisional = {
    id: `pay_${createHash("sha256").update(`${request.intent}\n${request.url}`).digest("hex").slice(0, 16)}`,
    service: request.service,
    resource: request.url,
  };
  // A repeat call's channel turn and acquisition, taken beside the unpaid request (channels/early-turn.ts).
  const early = startChannelTurnEarly(deps, request, provisional.id);
  try {
    return await purchase(deps, request, provisional, early);
  } finally {
    await early?.release();
  }
}

async function purchase(deps: PurchaseDependencies, request: PurchaseRequest, provisional: Subject, early: EarlyTurn | undefined): Promise<PurchaseOutcome> {
  const now = deps.now;
  const payerAddress = request.payer.kind === "agent" ? request.payer.account.address : request.payer.address;
  const fail = (reason: Parameters<typeof reportFailure>[2], message: string) => reportFailure(request.tracker, provisional, reason, message);

  // The payer's balance is needed at step 5; reading it alongside the unpaid request saves a
  // round trip on every payment (the read is wasted only when no payment follows), except where
  // this URL last paid through a channel, which spends no wallet balance (balance-first.ts).
  // A funded payer's account holds nothing until the pull: the money is its owner's.
  const funding = request.payer.kind === "agent" ? request.payer.funding : undefined;
  const balance = payerBalance(() => deps.chain.balanceOf(funding?.owner ?? payerAddress), request.url);

  // 1. Ask the service, without paying.
  const answer = await (request.ask ?? ((unpaid) => askWithoutPaying(deps.fetch, unpaid)))(request);
  if (answer.status === "failed") return fail(answer.reason, answer.message);
  if (answer.status === "free") return { status: "free", service: request.service, resource: request.url, data: await readServiceData(answer.response) };

  // 2. Read what it asks for and pick an option we can pay (quote-stage.ts, shared with the MCP quote).
  const { paymentRequired } = answer;
  // Pay once, use again: where the 402 offers sign-in-with-x, the agent signs in first; a
  // service that knows this wallet paid serves it with no payment (sign-in-instead.ts).
  const signedIn = await signInInstead(deps, request, paymentRequired);
  if (signedIn) return signedIn;
  const selection = chooseOption(deps.network, paymentRequired, request.limits, request.tracker.committedAmount, channelAccessOf(deps, request.payer));
  if (!selection.ok) return fail("payment-failed", `${request.service}: ${selection.reason}.`);
  const option = selection.option;
  const scheme = schemeOf(option);
  rememberChosenOption(request.url, scheme.paysThroughChannel);
  // Whether the chain allows the option (a metered one: this wallet's Permit2 approval), read
  // now beside the rest and decided with the balance.
  const readiness = readinessOf(deps.chain, payerAddress, option);
  const listed = request.listedAmount;
  const listingNote = listed !== undefined && option.amount !== listed ? ` (its listing said ${formatUsdc(listed)} USDC)` : "";
  // The listing's price and the operator's payee policy, in code, before anything is quoted or signed.
  const [refused] = optionProblems({ service: request.service, option, listedAmount: listed, payerKind: request.payer.kind, payeePolicy: deps.payeePolicy });
  if (refused) return fail(refused.reason, `${refused.text}; nothing was signed.`);
  // A channel call on its early turn (a channel this instance delivered through) is journaled
  // under that turn's id and reservation, its nonce binding no signature; its payee was paid.
  const onEarlyTurn = scheme.paysThroughChannel && early?.fits(option) ? early : undefined;
  // A payee this payer never paid is worth a second look: flagged, not refused. Asked while
  // the quote is frozen; a journal that cannot answer flags nothing rather than fail the payment.
  const paidBefore = deps.hasPaid && !onEarlyTurn ? deps.hasPaid(payerAddress, option.payTo).catch(() => undefined) : Promise.resolve(undefined);

  // 3. Freeze the quote: validity window and a nonce bound to every term.
  const window = quoteWindow({
    payerKind: request.payer.kind,
    nowMs: now(),
    deadline: request.deadline,
    serviceMaxSeconds: option.maxTimeoutSeconds,
    approvalTtlSeconds: deps.approvalTtlSeconds,
    agentTtlSeconds: deps.agentAuthorizationTtlSeconds,
  });
  if (!window) return fail("deadline", "Too little time is left in this request to pay and still prove the outcome in time; nothing was signed.");
  const { validAfter, validBefore } = window;
  const unsealed: Quote = {
    id: "",
    service: request.service,
    url: request.url,
    method: request.method,
    body: request.body,
    contentType: request.body === undefined ? undefined : (request.contentType ?? DEFAULT_CONTENT_TYPE),
    option,
    resource: paymentRequired.x402Version === 2 ? paymentRequired.resource : undefined,
    validAfter,
    validBefore,
    nonce: UNSEALED_NONCE,
    payer: payerAddress,
    payerKind: request.payer.kind,
    // The 402's extensions echoed as the official client does (bazaar included, bounded), with
    // the intent's payment identifier where the service declares that extension.
    // A user's signature is theirs to give once per quote: their payments carry no id of ours, so
    // two approvals of one question are two payments, never one "retry" the service would refuse.
    extensions: echoedExtensions(paymentRequired, request.payer.kind === "user" ? undefined : request.paymentIdentifier),
  };
  // A user's approval goes to the browser and comes back in a header of bounded size: it carries
  // the extensions that fit there, and those are what the nonce binds and the service is sent.
  const extensions =
    request.payer.kind === "user"
      ? extensionsThatFit(
          approvalRequest({ ...unsealed, nonce: LONGEST_NONCE }, scheme.typedData({ ...unsealed, nonce: LONGEST_NONCE }, deps.network.chainId)),
          unsealed.extensions,
        )
      : unsealed.extensions;
  const nonce =
    onEarlyTurn?.reservationId ??
    quoteNonce(deps.quoteSecret, {
      payer: payerAddress,
      option,
      chainId: deps.network.chainId,
      url: request.url,
      method: request.method,
      validAfter,
      validBefore,
      intent: request.payer.kind === "user" ? "" : request.intent,
      body: request.body,
      contentType: request.contentType,
      extensions,
      resourceInfo: resourceInfoOf(unsealed.resource),
    });
  const quote: Quote = { ...unsealed, id: onEarlyTurn?.paymentId ?? paymentIdForNonce(nonce), nonce, extensions };
  const amount = formatUsdc(option.amount);
  const newPayee = (await paidBefore) === false;
  const { quoted, quotedEvent } = quotedStep({ quote, scheme, amount, newPayee, listingNote });
  // A channel payment's journal rows are the channel ledger's own (channels/pay-through-channel.ts).
  if (scheme.paysThroughChannel) request.tracker.journaledElsewhere(quotedEvent);
  else request.tracker.update(quotedEvent, journalTerms(quote));
  const failQuote = (reason: Parameters<typeof reportFailure>[2], message: string) => reportFailure(request.tracker, subjectOf(quote), reason, message);

  // 4-5. Limits, in code, then the payer's balance and the scheme's readiness, before anything is signed.
  const checked = await paymentProblems({
    option,
    limits: request.limits,
    spentThisRequest: request.tracker.committedAmount,
    balance: scheme.paysThroughChannel ? undefined : balance(),
    readiness,
    payerKind: request.payer.kind,
    funded: funding !== undefined,
    all: false,
  });
  const [problem] = checked.problems;
  if (problem) return failQuote(problem.reason, `${problem.text}; nothing was signed.`);
  const { permit2Missing } = checked;
  if (scheme.paysThroughChannel) return identifiedOutcome(await payThroughChannel(deps, request, quote, early), quote);

  // A metered quote is signed as a Permit2 permit for its ceiling, an exact one as EIP-3009.
  const typedData = scheme.typedData(quote, deps.network.chainId);

  // 6. With the user's wallet, stop here and ask for a signature.
  if (request.payer.kind === "user") {
    if (request.body !== undefined && request.body.length > MAX_APPROVAL_BODY_CHARS) {
      return failQuote(
        "payment-failed",
        `The request body is longer than the ${MAX_APPROVAL_BODY_CHARS} characters a wallet approval can carry; nothing was signed.`,
      );
    }
    const approval = approvalRequest(quote, typedData, permit2Missing);
    // Where the service offers sign-in-with-x, the wallet may sign in instead if it paid before.
    const signIn = offerSignIn(deps, request, paymentRequired);
    const asked = scheme.words.approve(amount, request.service);
    const permit2Note = permit2Missing ? scheme.words.approveFirst : "";
    request.tracker.update({
      id: quote.id,
      status: "awaiting-approval",
      ...quoted,
      approval,
      ...(signIn ? { signIn } : {}),
      message: `${asked}${listingNote}${permit2Note}.`,
    });
    return { status: "awaiting-approval", paymentId: quote.id, service: request.service, amount, approval };
  }

  // 7. Reserve the per-request and daily budgets.
  const reserved = await reserveBudget(deps, { ...request, funding }, quote);
  if (reserved !== "ok") return failQuote(reserved.reason, reserved.message);

  // 8. Sign with the agent wallet, once the journal holds everything so far.
  const fundingNote = funding ? `Moving ${amount} USDC from ${funding.source} to the payer account, then signing.` : undefined;
  request.tracker.update({ id: quote.id, status: "signing", ...quoted, ...(fundingNote ? { message: fundingNote } : {}) });
  if (!(await request.tracker.recorded())) {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    request.tracker.releaseRequestBudget(option.amount);
    return failQuote("payment-failed", "The payment journal is unavailable, so no payment is made; nothing was signed.");
  }
  // A funded payer (a grant) receives exactly this amount from its owner now, not before the
  // budgets held it: the chain (Permit2's allowance) bounds the move once more.
  const funded = funding ? await fundPayer(funding, option.amount, permit2Missing) : undefined;
  if (funded && !funded.ok) {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    request.tracker.releaseRequestBudget(option.amount);
    return failQuote("payment-failed", `${funded.message}; nothing was signed.`);
  }
  const signed = typedData;
  let signature: `0x${string}`;
  try {
    signature = await scheme.sign(request.payer.account, signed);
  } catch {
    await deps.ledger.release(quote.nonce).catch(() => undefined);
    request.tracker.releaseRequestBudget(option.amount);
    return failQuote("payment-failed", "The agent wallet could not sign the payment; nothing was spent.");
  }
  return identifiedOutcome(await payAndDeliver(deps, { ...request, funded: funded?.words }, quote, signed, signature), quote);
}

/** Stands in for the nonce until the quote's terms are final. */
const UNSEALED_NONCE = `0x${"0".repeat(64)}` as const;
/** The nonce whose written form is longest (a permit writes it in decimal): for sizing the header. */
const LONGEST_NONCE = `0x${"f".repeat(64)}` as const;
