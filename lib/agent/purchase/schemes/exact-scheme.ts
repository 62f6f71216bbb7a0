/**
 * x402's `exact` scheme on EVM: the payer signs an EIP-3009 `TransferWithAuthorization` for the
 * price; the chain is asked by the token's `authorizationState`, and a settlement moves the price.
 */
import type { Hex, LocalAccount } from "viem";
import type { ChainReader } from "../../../x402/chain-reader";
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { buildPaymentPayload, buildTransferTypedData, toViemTypedData } from "../../../x402/transfer-authorization";
import type { AuthorizationOutcome, AuthorizationRef, AuthorizationTerms, PaymentScheme, QuoteTypedData, SchemeQuote } from "./payment-scheme";

function transferTypedData(typedData: QuoteTypedData) {
  if (typedData.primaryType !== "TransferWithAuthorization") throw new TypeError("an exact payment signs an EIP-3009 authorization");
  return typedData;
}

export const exactScheme: PaymentScheme = {
  name: "exact",
  // payment-requirements.ts reads an option as exact unless it carries upto terms.
  owns: (option: PayableRequirement) => option.upto === undefined,
  ownsAuthorization: (authorization: AuthorizationRef) => authorization.upto === undefined,

  typedData: (quote: SchemeQuote, chainId: number) =>
    buildTransferTypedData(quote.option, quote.payer, chainId, { validAfter: quote.validAfter, validBefore: quote.validBefore, nonce: quote.nonce }),
  sign: (account: LocalAccount, typedData: QuoteTypedData) => account.signTypedData(toViemTypedData(transferTypedData(typedData))),
  payload: (quote: SchemeQuote, typedData: QuoteTypedData, signature: Hex) =>
    buildPaymentPayload(quote.option, quote.resource, transferTypedData(typedData), signature, quote.extensions),

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
    paying: (amount) => `Paying ${amount} USDC; the service verifies and settles it.`,
    quoteFields: () => ({}),
    journalFields: () => ({}),
  },
};
