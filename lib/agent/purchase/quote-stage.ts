/**
 * The purchase's quote stage, up to and including its checks: which option of a 402 is paid,
 * and every check made before anything is signed (the listing's price, the operator's payee
 * policy, the per-payment and per-request limits, the payer's balance, a scheme's own readiness).
 * `runPurchase` stops at the first problem; the MCP `quote` reports them all and stops there.
 * One code path, so a quote never says what a purchase would not do.
 */
import { checkPayment } from "../../limits/check-payment";
import { checkPayeePolicy, type PayeePolicy } from "../../limits/payee-policy";
import type { EffectiveLimits } from "../../limits/spending-limits-input";
import { formatUsdc } from "../../money";
import type { PaymentFailureReason } from "../../stream";
import type { ChainReader } from "../../x402/chain-reader";
import {
  selectPayableRequirement,
  type PayableNetwork,
  type PayableRequirement,
  type PaymentRequired,
  type SelectionResult,
} from "../../x402/payment-requirements";
import type { Payer } from "./purchase-types";
import type { Readiness } from "./schemes/payment-scheme";
import { PAYABLE_SCHEMES, schemeOf, SCHEMES_WITHOUT_CHANNELS } from "./schemes/payment-schemes";

/** One reason not to sign, in words that end before "; nothing was signed". */
export type QuoteProblem = { reason: PaymentFailureReason; text: string };

/**
 * Whether this purchase may pay through a payment channel: only the agent's own wallet, and
 * only where a channel ledger serializes the channel's calls (the database store); else why not.
 */
export type ChannelAccess = { ok: true } | { ok: false; reason: string };

/**
 * The option paid: `exact` when its price fits the limits, else a metered (`upto`) ceiling that
 * fits; either wallet signs both (schemes/). A channel option only with channel access: without
 * it, another option the service offers, else a refusal that says why.
 */
export function chooseOption(
  network: PayableNetwork,
  paymentRequired: PaymentRequired,
  limits: EffectiveLimits,
  spentThisRequest: bigint,
  channels: ChannelAccess = { ok: false, reason: "this deployment keeps no channel ledger" },
): SelectionResult {
  const fits = (amount: bigint) => checkPayment({ amount, limits, spentThisRequest }).ok;
  if (channels.ok) return selectPayableRequirement(paymentRequired, network, { schemes: PAYABLE_SCHEMES, fits });
  const selection = selectPayableRequirement(paymentRequired, network, { schemes: SCHEMES_WITHOUT_CHANNELS, fits });
  if (selection.ok || !selectPayableRequirement(paymentRequired, network, { schemes: PAYABLE_SCHEMES, fits }).ok) return selection;
  return { ok: false, reason: `it is paid through a payment channel only, and ${channels.reason}` };
}

/**
 * What the chain must allow before the option can be signed, read now beside the rest: a
 * metered option settles through Permit2, so whether this wallet approved it (the scheme's own read).
 */
export function readinessOf(chain: ChainReader, payer: `0x${string}`, option: PayableRequirement): Promise<Readiness> | undefined {
  const readiness = schemeOf(option).readiness(chain, payer, option.amount);
  readiness?.catch(() => undefined);
  return readiness;
}

/**
 * The checks on the option itself, made before a quote is frozen. A price over the listing's is
 * never taken silently by the agent (a listing is how it chose); a person sees both and decides.
 */
export function optionProblems(input: {
  service: string;
  option: PayableRequirement;
  listedAmount?: bigint;
  payerKind: Payer["kind"];
  payeePolicy?: PayeePolicy;
}): QuoteProblem[] {
  const { service, option, listedAmount: listed } = input;
  const problems: QuoteProblem[] = [];
  if (listed !== undefined && option.amount > listed && input.payerKind === "agent") {
    problems.push({
      reason: "payment-failed",
      text: `${service} asks ${formatUsdc(option.amount)} USDC, more than the ${formatUsdc(listed)} USDC its listing advertised`,
    });
  }
  const policy = input.payeePolicy ? checkPayeePolicy(input.payeePolicy, option) : undefined;
  if (policy && !policy.ok) problems.push({ reason: "payment-failed", text: `${service}: ${policy.message}` });
  return problems;
}

export type PaymentChecks = {
  option: PayableRequirement;
  limits: EffectiveLimits;
  spentThisRequest: bigint;
  /** The payer's balance, read alongside the first request; absent, not checked (no wallet to quote for). */
  balance: Promise<bigint> | undefined;
  readiness: Promise<Readiness> | undefined;
  payerKind: Payer["kind"];
  /** A payer key a grant funds: its missing Permit2 approval is given before it signs (grant-funds.ts), not refused. */
  funded?: boolean;
  /** Stop at the first problem (a purchase) or report them all (a quote). */
  all: boolean;
};

export type PaymentCheckResult = {
  problems: QuoteProblem[];
  balance?: bigint;
  /** A person's wallet (or a funded payer key) has not approved Permit2 yet: asked for (given) before signing, not refused. */
  permit2Missing: boolean;
};

/** The per-payment and per-request limits, the balance and the scheme's readiness, in that order. */
export async function paymentProblems(input: PaymentChecks): Promise<PaymentCheckResult> {
  const { option } = input;
  const scheme = schemeOf(option);
  const amount = formatUsdc(option.amount);
  const problems: QuoteProblem[] = [];
  const done = () => !input.all && problems.length > 0;
  const check = checkPayment({ amount: option.amount, limits: input.limits, spentThisRequest: input.spentThisRequest });
  if (!check.ok) {
    const name = check.limit === "perPayment" ? "per-payment" : "per-request";
    problems.push({
      reason: "limit-exceeded",
      text: `${scheme.words.overLimit(amount)}${amount} USDC is over your ${name} limit of ${formatUsdc(check.limitAmount)} USDC`,
    });
    if (done()) return { problems, permit2Missing: false };
  }
  let balance: bigint | undefined;
  try {
    // A channel call needs the wallet's money only for a deposit: the channel path checks that.
    balance = input.balance === undefined || scheme.paysThroughChannel ? undefined : await input.balance;
  } catch {
    problems.push({ reason: "payment-failed", text: "The wallet's balance could not be read from the chain" });
    if (done()) return { problems, permit2Missing: false };
  }
  if (balance !== undefined && balance < option.amount) {
    problems.push({ reason: "insufficient-balance", text: `The paying wallet holds ${formatUsdc(balance)} USDC, less than the ${amount} USDC asked` });
    if (done()) return { problems, balance, permit2Missing: false };
  }
  const readiness = await input.readiness;
  const permit2Missing = readiness === "not-approved" && (input.payerKind === "user" || input.funded === true);
  const refused = readiness === undefined || permit2Missing ? undefined : scheme.readinessProblem(readiness);
  if (refused) problems.push({ reason: "payment-failed", text: refused });
  return { problems, balance, permit2Missing };
}
