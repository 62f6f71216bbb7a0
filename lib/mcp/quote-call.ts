import "server-only";
/**
 * What a call would cost and whether this caller's limits allow it, with nothing signed and
 * nothing reserved: the purchase path's first steps (runPurchase 1-5) on their own. The service
 * is asked once without payment, its 402 read, the option the agent would pay selected, then
 * the operator's payee policy, the listing's price, the per-payment and per-request limits, the
 * daily room and the agent wallet's balance are checked as a payment would check them. The
 * daily room is read, not reserved, so it can change before a `buy`.
 */
import type { UnlistedCalls } from "../agent/agent-run-types";
import type { AppDependencies } from "../doors/app-dependencies";
import { askWithoutPaying } from "../agent/purchase/ask-without-paying";
import { chooseOption, optionProblems, paymentProblems, readinessOf } from "../agent/purchase/quote-stage";
import { schemeOf } from "../agent/purchase/schemes/payment-schemes";
import { channelAccessOf } from "../agent/purchase/channels/pay-through-channel";
import type { EffectiveLimits } from "../limits/spending-limits-input";
import { formatUsdc } from "../money";
import { readDailyRoom, type DailyUse } from "./daily-room";
import type { PlannedCall } from "./plan-call";

export type QuoteOutcome =
  | { status: "refused"; message: string }
  | { status: "unavailable"; message: string }
  | { status: "free"; service: string; url: string; method: string; message: string }
  | {
      status: "quoted";
      service: string;
      url: string;
      method: string;
      /** Decimal USDC: the price, or for a metered (`upto`) option its ceiling. */
      amount: string;
      /** How it is paid: `exact` (the price) or `upto` (metered: at most the ceiling). */
      scheme: string;
      /** A metered option's ceiling, the most a `buy` would sign for (decimal USDC). */
      ceiling?: string;
      asset: string;
      network: string;
      payTo: string;
      x402Version: number;
      /** When the money moves: `upfront` settles before the service does the work; `authorization` after. */
      paymentFlow: "authorization" | "upfront";
      listedPrice?: string;
      /** True when a `buy` now would pay (the daily room may still change before it). */
      withinLimits: boolean;
      /** Why not, when it would not. */
      problems: string[];
      limits: { perPayment: string; perRequest: string; daily: DailyUse[] };
      balance?: string;
      signed: false;
    };

export type QuoteRequest = {
  call: PlannedCall;
  limits: EffectiveLimits;
  unlisted: UnlistedCalls;
  signal?: AbortSignal;
};

export async function quoteCall(deps: AppDependencies, request: QuoteRequest): Promise<QuoteOutcome> {
  const { call, limits } = request;
  const service = call.listing?.name ?? new URL(call.url).host;
  // An unlisted URL is asked on the server's behalf: only for callers who may spend the agent
  // wallet, each call counted in their window (as the chat's purchase path does).
  if (!call.listing) {
    if (!request.unlisted.allowed) {
      return {
        status: "refused",
        message:
          "Not called: this deployment calls URLs that discovery did not list only for callers it knows (an API key, or a wallet signed in that the operator allows).",
      };
    }
    if (!(await request.unlisted.count()))
      return {
        status: "refused",
        message: "Not called: this caller has used up its requests for now (rate limit), or the limiter is unavailable. Try again in a minute.",
      };
  }
  const payer = deps.agentAccount?.address;
  const balanceRead = payer ? deps.chain.balanceOf(payer) : undefined;
  balanceRead?.catch(() => undefined);

  // 1. Ask without paying, as the purchase does (ask-without-paying.ts).
  const body = call.body?.text;
  const answer = await askWithoutPaying(deps.fetch, {
    service,
    url: call.url,
    method: call.method,
    body,
    contentType: call.body?.contentType,
    signal: request.signal,
  });
  if (answer.status === "failed") return { status: "unavailable", message: answer.message };
  if (answer.status === "free") {
    await answer.response.body?.cancel();
    return { status: "free", service, url: call.url, method: call.method, message: `${service} answered without asking for payment: a buy costs nothing.` };
  }

  // 2. The option a `buy` would pay, chosen as the purchase chooses it (quote-stage.ts).
  const selection = chooseOption(deps.network, answer.paymentRequired, limits, 0n, channelAccessOf({ channels: deps.store.channels }, { kind: "agent" }));
  if (!selection.ok) return { status: "unavailable", message: `${service}: ${selection.reason}.` };
  const option = selection.option;
  const scheme = schemeOf(option);
  const amount = formatUsdc(option.amount);

  // 3. Every check a payment makes before signing, each reported rather than stopping at the first.
  const listed = call.listing?.amount;
  const problems = optionProblems({ service, option, listedAmount: listed, payerKind: "agent", payeePolicy: deps.settings.payeePolicy }).map(
    (problem) => problem.text,
  );
  const daily = await readDailyRoom(deps.store.ledger, limits, payer, deps.storeClock?.());
  if (option.amount > daily.left) problems.push(`${amount} USDC would go over the daily room left, ${formatUsdc(daily.left)} USDC`);
  const readiness = payer ? readinessOf(deps.chain, payer, option) : undefined;
  const checked = await paymentProblems({ option, limits, spentThisRequest: 0n, balance: balanceRead, readiness, payerKind: "agent", all: true });
  problems.push(...checked.problems.map((problem) => problem.text));
  if (!payer) problems.push("no agent wallet is configured, so this deployment can quote but not pay");
  const { balance } = checked;
  return {
    status: "quoted",
    service,
    url: call.url,
    method: call.method,
    amount,
    scheme: scheme.name,
    ...scheme.words.quoteFields(amount),
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    x402Version: option.x402Version,
    // When the money moves: "upfront" settles before the service does the work.
    paymentFlow: option.upfront ? "upfront" : "authorization",
    ...(listed === undefined ? {} : { listedPrice: formatUsdc(listed) }),
    withinLimits: problems.length === 0,
    problems,
    limits: { perPayment: formatUsdc(limits.perPayment), perRequest: formatUsdc(limits.perRequest), daily: daily.limits },
    ...(balance === undefined ? {} : { balance: formatUsdc(balance) }),
    signed: false,
  };
}
