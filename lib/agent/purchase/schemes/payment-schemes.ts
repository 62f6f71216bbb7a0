/**
 * The schemes this deployment pays, in one list: both, for the agent wallet and a person's
 * wallet alike (a person signs the same Permit2 typed data in their wallet, after a one-time
 * Permit2 approve). Adding a scheme is a module implementing PaymentScheme, listed here.
 */
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { batchSettlementScheme } from "./batch-settlement-scheme";
import { exactScheme } from "./exact-scheme";
import type { Metering, SettledPayment } from "../upto-settlement";
import type { AuthorizationRef, PaymentScheme, SchemeQuote } from "./payment-scheme";
import type { SchemeName } from "../../../x402/payment-requirements";
import { uptoScheme } from "./upto-scheme";

export const PAYMENT_SCHEMES: readonly PaymentScheme[] = [exactScheme, uptoScheme, batchSettlementScheme];

/** The names the option selection accepts. */
export const PAYABLE_SCHEMES: readonly SchemeName[] = PAYMENT_SCHEMES.map((scheme) => scheme.name);

/** The names the selection accepts where no channel can be paid (no channel ledger, or not the agent's own wallet). */
export const SCHEMES_WITHOUT_CHANNELS: readonly SchemeName[] = PAYMENT_SCHEMES.filter((scheme) => !scheme.paysThroughChannel).map((scheme) => scheme.name);

/** The scheme that pays an option (a selected option is always one of ours). */
export function schemeOf(option: PayableRequirement): PaymentScheme {
  const scheme = PAYMENT_SCHEMES.find((candidate) => candidate.owns(option));
  if (!scheme) throw new TypeError("an option of a scheme this deployment does not pay");
  return scheme;
}

/** The scheme whose chain state a signed authorization is read from. */
export function schemeOfAuthorization(authorization: AuthorizationRef): PaymentScheme {
  return PAYMENT_SCHEMES.find((candidate) => candidate.ownsAuthorization(authorization)) ?? PAYMENT_SCHEMES[0]!;
}

/** A scheme by the name a journal row keeps; an unnamed one is `exact`, the journal's default. */
export function schemeNamed(name: string | undefined): PaymentScheme {
  return PAYMENT_SCHEMES.find((candidate) => candidate.name === (name ?? exactScheme.name)) ?? exactScheme;
}

/** How the chain is asked about a quote's signature. */
export function authorizationRefOf(quote: SchemeQuote): AuthorizationRef {
  return schemeOf(quote.option).authorizationRef({ payer: quote.payer, nonce: quote.nonce, validBefore: quote.validBefore, payTo: quote.option.payTo });
}

/** A proven settlement as the budgets count it: what moved for a metered quote; undefined when the price is what counts. */
export function settledPayment(quote: SchemeQuote, amount: bigint | undefined, said?: { metering?: Metering; reported?: bigint }): SettledPayment | undefined {
  return schemeOf(quote.option).settled(quote, amount, said);
}

/** The quote's terms as the journal keeps them; a metered quote's amount is its ceiling, and the scheme says so. */
export function journalTerms(quote: SchemeQuote & { payerKind: "agent" | "user"; method: string }) {
  const { option } = quote;
  return {
    payerKind: quote.payerKind,
    amount: option.amount,
    nonce: quote.nonce,
    validAfter: quote.validAfter,
    validBefore: quote.validBefore,
    method: quote.method,
    ...schemeOf(option).words.journalFields(option.amount),
  };
}

/** A scheme's name as a person's approval names it: never a channel's (the selection does not offer channels to a person's wallet). */
export function approvalSchemeName(scheme: PaymentScheme): Exclude<SchemeName, "batch-settlement"> {
  if (scheme.name === "batch-settlement") throw new TypeError("a channel payment is never a person's approval");
  return scheme.name;
}
