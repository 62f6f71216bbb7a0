import "server-only";
/**
 * What a call would cost and whether this caller's limits allow it, with nothing signed and
 * nothing reserved: the purchase path's first steps (runPurchase 1-5) on their own. The service
 * is asked once without payment, its 402 read, the option the agent would pay selected, then
 * the operator's payee policy, the listing's price, the per-payment and per-request limits, the
 * daily room and the agent wallet's balance are checked as a payment would check them. The
 * daily room is read, not reserved, so it can change before a `buy`.
 */
import type { UnlistedCalls } from "../agent/agent-run";
import type { ChatDependencies } from "../chat/chat-dependencies";
import { describeFetchFailure, requestHeaders } from "../agent/purchase/pay-and-deliver";
import { checkPayment } from "../limits/check-payment";
import { checkPayeePolicy } from "../limits/payee-policy";
import type { EffectiveLimits } from "../limits/spending-limits-input";
import { formatUsdc } from "../money";
import { readOptionalJson } from "../net/read-optional-json";
import { readPaymentRequired, selectPayableRequirement } from "../x402/payment-requirements";
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
      /** Decimal USDC. */
      amount: string;
      asset: string;
      network: string;
      payTo: string;
      x402Version: number;
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

export async function quoteCall(deps: ChatDependencies, request: QuoteRequest): Promise<QuoteOutcome> {
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

  // 1. Ask without paying.
  let first: Response;
  try {
    first = await deps.fetch(call.url, {
      method: call.method,
      body: call.body?.text,
      headers: requestHeaders(call.body?.text, call.body?.contentType),
      signal: request.signal,
    });
  } catch (error) {
    return { status: "unavailable", message: `${service} could not be reached (${describeFetchFailure(error)}); nothing was signed.` };
  }
  if (first.ok) {
    await first.body?.cancel();
    return { status: "free", service, url: call.url, method: call.method, message: `${service} answered without asking for payment: a buy costs nothing.` };
  }
  if (first.status !== 402) {
    await first.body?.cancel();
    return { status: "unavailable", message: `${service} answered HTTP ${first.status} before any payment.` };
  }

  // 2. Its terms, and the option the agent would pay.
  const paymentRequired = readPaymentRequired(first.headers, await readOptionalJson(first));
  if (!paymentRequired) return { status: "unavailable", message: `${service} sent a 402 without readable x402 payment requirements.` };
  const selection = selectPayableRequirement(paymentRequired, deps.network);
  if (!selection.ok) return { status: "unavailable", message: `${service}: ${selection.reason}.` };
  const option = selection.option;
  const amount = formatUsdc(option.amount);

  // 3. Every check a payment makes before signing, each reported rather than stopping at the first.
  const problems: string[] = [];
  const policy = deps.settings.payeePolicy ? checkPayeePolicy(deps.settings.payeePolicy, option) : undefined;
  if (policy && !policy.ok) problems.push(`${service}: ${policy.message}`);
  const listed = call.listing?.amount;
  if (listed !== undefined && option.amount > listed)
    problems.push(`${service} asks ${amount} USDC, more than the ${formatUsdc(listed)} USDC its listing advertised`);
  const check = checkPayment({ amount: option.amount, limits, spentThisRequest: 0n });
  if (!check.ok)
    problems.push(`${amount} USDC is over your ${check.limit === "perPayment" ? "per-payment" : "per-request"} limit of ${formatUsdc(check.limitAmount)} USDC`);
  const daily = await readDailyRoom(deps.store.ledger, limits, payer, deps.now?.());
  if (option.amount > daily.left) problems.push(`${amount} USDC would go over the daily room left, ${formatUsdc(daily.left)} USDC`);
  let balance: bigint | undefined;
  if (!payer) {
    problems.push("no agent wallet is configured, so this deployment can quote but not pay");
  } else {
    balance = await balanceRead?.catch(() => undefined);
    if (balance === undefined) problems.push("the agent wallet's balance could not be read from the chain");
    else if (balance < option.amount) problems.push(`the agent wallet holds ${formatUsdc(balance)} USDC, less than the ${amount} USDC asked`);
  }
  return {
    status: "quoted",
    service,
    url: call.url,
    method: call.method,
    amount,
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    x402Version: option.x402Version,
    ...(listed === undefined ? {} : { listedPrice: formatUsdc(listed) }),
    withinLimits: problems.length === 0,
    problems,
    limits: { perPayment: formatUsdc(limits.perPayment), perRequest: formatUsdc(limits.perRequest), daily: daily.limits },
    ...(balance === undefined ? {} : { balance: formatUsdc(balance) }),
    signed: false,
  };
}
