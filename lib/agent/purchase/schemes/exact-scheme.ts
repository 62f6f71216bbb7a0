/**
 * x402's `exact` scheme on EVM: the payer signs an EIP-3009 `TransferWithAuthorization` for the
 * price; the chain is asked by the token's `authorizationState`, and a settlement moves the price.
 */
import { getAddress, type Hex, type LocalAccount } from "viem";
import type { ChainReader } from "../../../x402/chain-reader";
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { isPermit2Authorization } from "../../../x402/payment-signature-header";
import { isChannelOption } from "../../../x402/schemes/batch-settlement-offer";
import { isUptoOption } from "../../../x402/schemes/upto-offer";
import { buildPaymentPayload, buildTransferTypedData, recoverAuthorizationSigner, toViemTypedData } from "../../../x402/transfer-authorization";
import type {
  AuthorizationOutcome,
  AuthorizationRef,
  AuthorizationTerms,
  PaymentScheme,
  QuoteTypedData,
  SchemeQuote,
  SignedAuthorization,
  SignedQuoteTerms,
} from "./payment-scheme";

function transferTypedData(typedData: QuoteTypedData) {
  if (typedData.primaryType !== "TransferWithAuthorization") throw new TypeError("an exact payment signs an EIP-3009 authorization");
  return typedData;
}

export const exactScheme: PaymentScheme = {
  name: "exact",
  // The offer readers (lib/x402/schemes/) give an option scheme terms only for a scheme that has them.
  owns: (option: PayableRequirement) => !isUptoOption(option) && !isChannelOption(option),
  paysThroughChannel: false,
  ownsAuthorization: (authorization: AuthorizationRef) => authorization.upto === undefined && authorization.channel === undefined,

  typedData: (quote: SignedQuoteTerms, chainId: number) =>
    buildTransferTypedData(quote.option, quote.payer, chainId, { validAfter: quote.validAfter, validBefore: quote.validBefore, nonce: quote.nonce }),
  sign: (account: LocalAccount, typedData: QuoteTypedData) => account.signTypedData(toViemTypedData(transferTypedData(typedData))),
  payload: (quote: SchemeQuote, typedData: QuoteTypedData, signature: Hex) =>
    buildPaymentPayload(quote.option, quote.resource, transferTypedData(typedData), signature, quote.extensions),

  approvalFields: () => ({}),
  /** An EIP-3009 authorization: its window, its nonce as it is, and its payer, payee and value. */
  readSigned(authorization: SignedAuthorization, option: PayableRequirement) {
    if (isPermit2Authorization(authorization)) return undefined;
    return {
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce as `0x${string}`,
      sameTerms: (wallet: `0x${string}`) =>
        getAddress(authorization.from) === wallet && getAddress(authorization.to) === option.payTo && BigInt(authorization.value) === option.amount,
    };
  },
  recoverSigner: (typedData: QuoteTypedData, signature: Hex) => recoverAuthorizationSigner(transferTypedData(typedData), signature),

  authorizationRef: ({ payer, nonce, validBefore }: AuthorizationTerms) => ({ payer, nonce, validBefore }),
  async readAuthorization(chain: ChainReader, authorization: AuthorizationRef, expired: boolean): Promise<AuthorizationOutcome> {
    const used = await chain.isAuthorizationUsed(authorization.payer, authorization.nonce).catch(() => undefined);
    if (used === true) {
      const txHash = await chain.findAuthorizationTransaction(authorization.payer, authorization.nonce).catch(() => undefined);
      return { state: "used", txHash };
    }
    if (used === false && expired) return { state: "expired-unused" };
    return { state: "open" };
  },
  async proveSettlement(chain: ChainReader, quote: SchemeQuote, txHash: `0x${string}`) {
    return (await chain.transactionUsedAuthorization(txHash, quote.payer, quote.nonce)) ? { amount: quote.option.amount } : undefined;
  },
  readiness: () => undefined,
  readinessProblem: () => undefined,

  // The price is what is reserved and what is committed.
  settled: () => undefined,
  readUsage: () => undefined,
  settlesNothingWhenUnused: false,

  words: {
    asks: (amount) => `${amount} USDC`,
    overLimit: () => "",
    approve: (amount, service) => `Approve ${amount} USDC to ${service} in your wallet`,
    approveFirst: "",
    paying: (amount) => `Paying ${amount} USDC; the service verifies and settles it.`,
    quoteFields: () => ({}),
    journalFields: () => ({}),
  },
};
