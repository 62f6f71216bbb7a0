/**
 * What a payer signs for a frozen quote and what the service is sent, by scheme: an `exact`
 * quote is an EIP-3009 `TransferWithAuthorization` for its price; an `upto` quote is a Permit2
 * witness permit for its ceiling, whose `deadline` is the quote's `validBefore` and whose
 * Permit2 nonce is the quote's own HMAC nonce (upto-permit2.ts). One place, so the signing, the
 * payload and the chain's proof all read the same terms.
 */
import type { Hex, LocalAccount } from "viem";
import type { PaymentScheme } from "../../x402/payment-requirements";
import { buildPaymentPayload, buildTransferTypedData, toViemTypedData } from "../../x402/transfer-authorization";
import { buildUptoPaymentPayload, buildUptoTypedData, toViemUptoTypedData, type UptoPermitTypedData } from "../../x402/upto-permit2";
import type { ChainReader } from "../../x402/chain-reader";
import type { AuthorizationRef } from "./authorization-outcome";
import type { Quote, TransferTypedData } from "./purchase-types";

export type QuoteTypedData = TransferTypedData | UptoPermitTypedData;

/**
 * The schemes a payer can pay: both, for the agent wallet and a person's wallet alike (a person
 * signs the same Permit2 typed data in their wallet, after a one-time Permit2 approve).
 */
export const PAYABLE_SCHEMES: readonly PaymentScheme[] = ["exact", "upto"];

/** The typed data the payer signs for the quote. */
export function typedDataFor(quote: Quote, chainId: number): QuoteTypedData {
  const window = { validAfter: quote.validAfter, nonce: quote.nonce };
  if (quote.option.upto) return buildUptoTypedData(quote.option, chainId, { ...window, deadline: quote.validBefore });
  return buildTransferTypedData(quote.option, quote.payer, chainId, { ...window, validBefore: quote.validBefore });
}

/** Signs the quote's typed data with the agent wallet. */
export function signTypedQuote(account: LocalAccount, typedData: QuoteTypedData): Promise<Hex> {
  return typedData.primaryType === "PermitWitnessTransferFrom" ? account.signTypedData(toViemUptoTypedData(typedData)) : account.signTypedData(toViemTypedData(typedData));
}

/** The x402 payment payload that carries the signature to the service. */
export function paymentPayloadFor(quote: Quote, typedData: QuoteTypedData, signature: Hex): Record<string, unknown> {
  if (typedData.primaryType === "PermitWitnessTransferFrom") {
    return buildUptoPaymentPayload(quote.option, quote.resource, typedData, quote.payer, signature, quote.extensions);
  }
  return buildPaymentPayload(quote.option, quote.resource, typedData, signature, quote.extensions);
}

/** Whether Permit2 may move the ceiling from the payer's wallet, as the chain says now. */
export type Permit2Readiness = "ready" | "not-approved" | "unreadable";

/**
 * Permit2 moves only what the owner approved it to (a one-time ERC-20 `approve` by the owner):
 * asked before a permit is signed or sent, so a permit that could not settle is never handed out.
 */
export async function permit2Readiness(chain: ChainReader, payer: `0x${string}`, ceiling: bigint): Promise<Permit2Readiness> {
  try {
    return (await chain.permit2Allowance(payer)) >= ceiling ? "ready" : "not-approved";
  } catch {
    return "unreadable";
  }
}

/**
 * Why an upto option cannot be paid from this wallet yet, or undefined when it can. The agent
 * never sends the approve transaction on its own; a person's wallet is offered it with the approval.
 */
export async function permit2NotReady(chain: ChainReader, payer: `0x${string}`, ceiling: bigint, nothing = "nothing was signed"): Promise<string | undefined> {
  return permit2Refusal(await permit2Readiness(chain, payer, ceiling), nothing);
}

/** The words for a readiness that stops a payment; undefined for `ready`. */
export function permit2Refusal(readiness: Permit2Readiness, nothing = "nothing was signed"): string | undefined {
  const problem = permit2Problem(readiness);
  return problem === undefined ? undefined : `${problem}; ${nothing}.`;
}

/** What stops a payment in that readiness, without what it means for the signature. */
export function permit2Problem(readiness: Permit2Readiness): string | undefined {
  if (readiness === "ready") return undefined;
  if (readiness === "unreadable") return "The wallet's Permit2 approval could not be read from the chain";
  return "This metered service is paid through Permit2, and the paying wallet has not approved Permit2 to move its USDC (a one-time approve transaction by the wallet's owner)";
}

/** How the chain is asked about the quote's signature: by EIP-3009 nonce, or by Permit2 nonce and payee. */
export function authorizationRefOf(quote: Pick<Quote, "payer" | "nonce" | "validBefore" | "option">): AuthorizationRef {
  return { payer: quote.payer, nonce: quote.nonce, validBefore: quote.validBefore, ...(quote.option.upto ? { upto: { payTo: quote.option.payTo } } : {}) };
}
