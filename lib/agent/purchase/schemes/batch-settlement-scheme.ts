/**
 * x402's `batch-settlement` scheme (payment channels) as the purchase registry sees it: an
 * option it owns is paid through the channel path (../channels/pay-through-channel.ts), which
 * leases the channel from the channel ledger and signs, with the official client's code, a
 * deposit with its first voucher or a cumulative voucher per call. So the one-authorization
 * methods of a scheme are not how it pays: signing one is refused, a person's wallet is never
 * asked (the selection does not offer channels to it), and the chain is never asked about a
 * voucher (a voucher has no transaction; the channel ledger records what the service charged).
 */
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { isChannelOption } from "../../../x402/schemes/batch-settlement-offer";
import type { AuthorizationRef, AuthorizationTerms, PaymentScheme } from "./payment-scheme";

const NOT_SIGNED_HERE = "a channel payment is signed by the channel path (vouchers and deposits), not as one authorization";

export const batchSettlementScheme: PaymentScheme = {
  name: "batch-settlement",
  owns: (option: PayableRequirement) => isChannelOption(option),
  paysThroughChannel: true,
  ownsAuthorization: (authorization: AuthorizationRef) => authorization.channel === true,

  typedData: () => {
    throw new TypeError(NOT_SIGNED_HERE);
  },
  sign: () => Promise.reject(new TypeError(NOT_SIGNED_HERE)),
  payload: () => {
    throw new TypeError(NOT_SIGNED_HERE);
  },

  approvalFields: () => ({}),
  readSigned: () => undefined,
  recoverSigner: () => Promise.resolve(undefined),

  authorizationRef: ({ payer, nonce, validBefore }: AuthorizationTerms) => ({ payer, nonce, validBefore, channel: true }),
  // A voucher's fate is the channel ledger's (its settle, abandon and resync, and the idle
  // refund), never an authorization read from the chain: the reconciler leaves it open.
  readAuthorization: () => Promise.resolve({ state: "open" }),
  proveSettlement: () => Promise.resolve(undefined),
  readiness: () => undefined,
  readinessProblem: () => undefined,

  settled: () => undefined,
  readUsage: () => undefined,
  settlesNothingWhenUnused: false,

  words: {
    asks: (amount) => `${amount} USDC a call, paid by a voucher on a payment channel`,
    overLimit: () => "",
    approve: (amount, service) => `Approve ${amount} USDC to ${service} in your wallet`,
    approveFirst: "",
    paying: (amount) => `Paying ${amount} USDC by a voucher on a payment channel.`,
    quoteFields: () => ({}),
    journalFields: () => ({}),
  },
};
