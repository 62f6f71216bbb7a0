/**
 * x402's `upto` scheme on EVM (metered): the payer signs a Permit2 witness permit for a ceiling,
 * whose `deadline` is the quote's `validBefore` and whose Permit2 nonce is the quote's own HMAC
 * nonce (upto-permit2.ts); Permit2 must be approved to move the payer's USDC. The service settles
 * what it used, at most the ceiling: the ceiling is reserved, what the chain shows moved is
 * committed, and held against what the service says it used (upto-settlement.ts).
 */
import { getAddress, type Hex, type LocalAccount } from "viem";
import { formatUsdc } from "../../../money";
import type { ChainReader } from "../../../x402/chain-reader";
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { isPermit2Authorization } from "../../../x402/payment-signature-header";
import { isUptoOption, meteringUnitOf, uptoTermsOf } from "../../../x402/schemes/upto-offer";
import {
  buildUptoPaymentPayload,
  buildUptoTypedData,
  PERMIT2,
  permit2NonceOf,
  recoverUptoSigner,
  toViemUptoTypedData,
  UPTO_PROXY,
} from "../../../x402/upto-permit2";
import { readMetering, reviewSettlement, type Metering } from "../upto-settlement";
import type {
  AuthorizationOutcome,
  AuthorizationRef,
  AuthorizationTerms,
  PaymentScheme,
  QuoteTypedData,
  Readiness,
  SchemeQuote,
  SignedAuthorization,
  SignedQuoteTerms,
} from "./payment-scheme";

function permitTypedData(typedData: QuoteTypedData) {
  if (typedData.primaryType !== "PermitWitnessTransferFrom") throw new TypeError("a metered payment signs a Permit2 permit");
  return typedData;
}

export const uptoScheme: PaymentScheme = {
  name: "upto",
  owns: (option: PayableRequirement) => isUptoOption(option),
  paysThroughChannel: false,
  ownsAuthorization: (authorization: AuthorizationRef) => authorization.upto !== undefined,

  typedData: (quote: SignedQuoteTerms, chainId: number) =>
    buildUptoTypedData(quote.option, chainId, { validAfter: quote.validAfter, nonce: quote.nonce, deadline: quote.validBefore }),
  sign: (account: LocalAccount, typedData: QuoteTypedData) => account.signTypedData(toViemUptoTypedData(permitTypedData(typedData))),
  payload: (quote: SchemeQuote, typedData: QuoteTypedData, signature: Hex) =>
    buildUptoPaymentPayload(quote.option, quote.resource, permitTypedData(typedData), quote.payer, signature, quote.extensions),

  /** The ceiling, the metering the 402 declared, and the Permit2 approve a wallet must send first. */
  approvalFields(option: PayableRequirement, notApproved: boolean) {
    const { unitPrice } = uptoTermsOf(option);
    const unit = meteringUnitOf(option);
    return {
      ceiling: formatUsdc(option.amount),
      ...(unitPrice === undefined ? {} : { metering: { unitPrice: formatUsdc(unitPrice), ...(unit === undefined ? {} : { unit }) } }),
      ...(notApproved ? { permit2Approval: { spender: PERMIT2, token: option.asset, amount: formatUsdc(option.amount) } } : {}),
    };
  },
  /** A permit: its window is [validAfter (in its witness), deadline], and it carries the quote's nonce as a uint256. */
  readSigned(authorization: SignedAuthorization, option: PayableRequirement) {
    if (!isPermit2Authorization(authorization)) return undefined;
    return {
      validAfter: BigInt(authorization.witness.validAfter),
      validBefore: BigInt(authorization.deadline),
      nonce: quoteNonceOfPermit(authorization.nonce),
      sameTerms: (wallet: `0x${string}`) =>
        getAddress(authorization.from) === wallet &&
        getAddress(authorization.witness.to) === option.payTo &&
        BigInt(authorization.permitted.amount) === option.amount &&
        getAddress(authorization.permitted.token) === option.asset &&
        getAddress(authorization.spender) === UPTO_PROXY &&
        getAddress(authorization.witness.facilitator) === uptoTermsOf(option).facilitator,
    };
  },
  recoverSigner: (typedData: QuoteTypedData, signature: Hex) => recoverUptoSigner(permitTypedData(typedData), signature),

  authorizationRef: ({ payer, nonce, validBefore, payTo }: AuthorizationTerms) => ({ payer, nonce, validBefore, upto: { payTo } }),
  /**
   * Permit2 marks a nonce used in the settling transaction itself, and logs nothing that names
   * it: the transaction is found by its calldata among the payer's recent transfers to the
   * payee, and with it the amount that moved.
   */
  async readAuthorization(chain: ChainReader, authorization: AuthorizationRef, expired: boolean): Promise<AuthorizationOutcome> {
    if (!authorization.upto) throw new TypeError("not a permit");
    const { payTo } = authorization.upto;
    const nonce = permit2NonceOf(authorization.nonce);
    const used = await chain.isPermit2NonceUsed(authorization.payer, nonce).catch(() => undefined);
    if (used === true) {
      const found = await chain.findPermitSettlement({ payer: authorization.payer, payTo, nonce }).catch(() => undefined);
      return found ? { state: "used", txHash: found.txHash, amount: found.amount } : { state: "used", txHash: undefined };
    }
    if (used === false && expired) return { state: "expired-unused" };
    return { state: "open" };
  },
  async proveSettlement(chain: ChainReader, quote: SchemeQuote, txHash: `0x${string}`) {
    const settled = await chain.permitSettlementIn(txHash, { payer: quote.payer, payTo: quote.option.payTo, nonce: permit2NonceOf(quote.nonce) });
    return settled || undefined;
  },
  /** Permit2 moves only what the owner approved it to (a one-time ERC-20 `approve` by the owner). */
  async readiness(chain: ChainReader, payer: `0x${string}`, ceiling: bigint): Promise<Readiness> {
    try {
      return (await chain.permit2Allowance(payer)) >= ceiling ? "ready" : "not-approved";
    } catch {
      return "unreadable";
    }
  },
  /** The agent never sends the approve transaction on its own; a person's wallet is offered it with the approval. */
  readinessProblem(readiness: Readiness) {
    if (readiness === "ready") return undefined;
    if (readiness === "unreadable") return "The wallet's Permit2 approval could not be read from the chain";
    return "This metered service is paid through Permit2, and the paying wallet has not approved Permit2 to move its USDC (a one-time approve transaction by the wallet's owner)";
  },

  settled(quote: SchemeQuote, amount: bigint | undefined, said: { metering?: Metering; reported?: bigint } = {}) {
    if (amount === undefined) return undefined;
    const review = reviewSettlement({
      service: quote.service,
      ceiling: quote.option.amount,
      settled: amount,
      quotedUnitPrice: uptoTermsOf(quote.option).unitPrice,
      ...said,
    });
    return { amount, review };
  },
  readUsage: (copy: () => Response) => readMetering(copy()),
  // A metered service that used nothing settles nothing: its permit stays usable until its deadline.
  settlesNothingWhenUnused: true,

  words: {
    asks: (amount) => `up to ${amount} USDC, metered: it settles what it uses`,
    overLimit: () => "A ceiling of ",
    approve: (amount, service) => `Approve up to ${amount} USDC to ${service} in your wallet (metered: it takes what it uses)`,
    approveFirst: "; first, your wallet must let Permit2 move its USDC (a one-time approve transaction)",
    paying: (amount) => `Paying at most ${amount} USDC; the service verifies and settles it.`,
    quoteFields: (amount) => ({ ceiling: amount }),
    journalFields: (amount) => ({ scheme: "upto", ceiling: amount }),
  },
};

/** A permit's uint256 nonce as the 32-byte quote nonce it was made from; undefined when it cannot be one. */
function quoteNonceOfPermit(nonce: string): `0x${string}` | undefined {
  const hex = BigInt(nonce).toString(16);
  return hex.length > 64 ? undefined : `0x${hex.padStart(64, "0")}`;
}
