/**
 * One x402 payment scheme, whole: what the payer signs for a frozen quote, the payload that
 * carries the signature, how the chain is asked about it, what the chain shows it settled, what
 * the chain must allow before signing, and the words and amounts the stream and the budgets use.
 * The purchase (stages in docs/purchase-core.md) asks the option's scheme and never branches on
 * a scheme's name; a new scheme is one module implementing this, added to payment-schemes.ts.
 * Modelled on the official x402 client's scheme classes (`SchemeNetworkClient`).
 */
import type { Hex, LocalAccount } from "viem";
import type { ApprovalRequest } from "../../../stream";
import type { TransferAuthorizationTypedData } from "../../../stream/events";
import type { ChainReader } from "../../../x402/chain-reader";
import type { PayableRequirement, SchemeName } from "../../../x402/payment-requirements";
import type { Permit2Authorization, TransferAuthorization } from "../../../x402/payment-signature-header";
import type { OutgoingPaymentPayload } from "../../../x402/payment-payload";
import type { UptoPermitTypedData } from "../../../x402/upto-permit2";
import type { Metering, SettledPayment } from "../upto-settlement";

/** What a payer signs: an EIP-3009 authorization (`exact`) or a Permit2 permit (`upto`). */
export type QuoteTypedData = TransferAuthorizationTypedData | UptoPermitTypedData;

/** The terms of a frozen quote a scheme signs, sends and reads back from the chain. */
export type SchemeQuote = {
  service: string;
  option: PayableRequirement;
  resource: { url: string } | undefined;
  payer: `0x${string}`;
  nonce: `0x${string}`;
  validAfter: bigint;
  validBefore: bigint;
  extensions?: Record<string, unknown>;
};

export type AuthorizationRef = {
  payer: `0x${string}`;
  nonce: `0x${string}`;
  /** EIP-3009's `validBefore`, or a permit's `deadline` (its last valid second; the margin covers the difference). */
  validBefore: bigint;
  /** An upto permit: its Permit2 nonce derives from `nonce`, and it pays only `payTo`. */
  upto?: { payTo: `0x${string}` };
  /** A channel voucher or deposit: no authorization of its own on chain; the channel ledger decides it. */
  channel?: true;
};

export type AuthorizationOutcome =
  /**
   * The transfer happened; `txHash` is undefined while its transaction cannot be found. For an
   * upto permit, `amount` is what the found transaction moved (absent while it is not found).
   */
  | { state: "used"; txHash: `0x${string}` | undefined; amount?: bigint }
  /** Past validBefore (and the margin) and still unused: it can never move money now. */
  | { state: "expired-unused" }
  /** It may still be used, or the chain could not be read. */
  | { state: "open" };

/** Whether the chain lets the payer's signature settle, as it says now. */
export type Readiness = "ready" | "not-approved" | "unreadable";

/** A settlement the chain shows, with the amount that moved. */
export type ProvenSettlement = { amount: bigint };

/** The terms a typed data is built from. */
export type SignedQuoteTerms = Pick<SchemeQuote, "option" | "payer" | "validAfter" | "validBefore" | "nonce">;

/** A person's signed authorization as the approval's `PAYMENT-SIGNATURE` carries it. */
export type SignedAuthorization = TransferAuthorization | Permit2Authorization;

/** A person's signed authorization read back into the quote's terms. */
export type SignedTerms = {
  validAfter: bigint;
  validBefore: bigint;
  /** The quote's 32-byte nonce it carries; undefined when it cannot be one. */
  nonce: `0x${string}` | undefined;
  /** Whether it signs the option's terms for this wallet (checksummed), read once the window and method have passed. */
  sameTerms(wallet: `0x${string}`): boolean;
};

/** The fields an approval request carries beside the common ones (a ceiling, its metering, an approve to send first). */
export type ApprovalSchemeFields = Pick<ApprovalRequest, "ceiling" | "metering" | "permit2Approval">;

/** What a signature is known by, in a quote and in the journal alike. */
export type AuthorizationTerms = { payer: `0x${string}`; nonce: `0x${string}`; validBefore: bigint; payTo: `0x${string}` };

export interface PaymentScheme {
  readonly name: SchemeName;
  /** Whether the option (as payment-requirements.ts read it) is this scheme's. */
  owns(option: PayableRequirement): boolean;
  /** Whether a reference to a signed authorization is this scheme's. */
  ownsAuthorization(authorization: AuthorizationRef): boolean;
  /**
   * Whether it pays through a channel the channel ledger leases (`batch-settlement`): after the
   * checks, the purchase hands the quote to the channel path (../channels/), which signs a
   * deposit or a voucher per call; the one-authorization methods below are then not used.
   */
  readonly paysThroughChannel: boolean;

  /** What to sign for the quote. */
  typedData(quote: SignedQuoteTerms, chainId: number): QuoteTypedData;
  /** Signs it with the agent wallet. */
  sign(account: LocalAccount, typedData: QuoteTypedData): Promise<Hex>;
  /** The x402 payment payload that carries the signature to the service. */
  payload(quote: SchemeQuote, typedData: QuoteTypedData, signature: Hex): OutgoingPaymentPayload;

  /**
   * A person's wallet: the fields the approval request carries for this scheme (`notApproved`:
   * the chain does not yet let the signature settle, readiness "not-approved").
   */
  approvalFields(option: PayableRequirement, notApproved: boolean): ApprovalSchemeFields;
  /** A person's signed authorization read back; undefined when it is not of this scheme's shape. */
  readSigned(authorization: SignedAuthorization, option: PayableRequirement): SignedTerms | undefined;
  /** The address that signed this scheme's typed data; undefined for a malformed signature. */
  recoverSigner(typedData: QuoteTypedData, signature: Hex): Promise<`0x${string}` | undefined>;

  /** How the chain is asked about a signature (a quote's, or a journal row's for the reconciler). */
  authorizationRef(terms: AuthorizationTerms): AuthorizationRef;
  /** Whether the signature was used, or expired unused (`expired`: past its window, on the clock the caller trusts). */
  readAuthorization(chain: ChainReader, authorization: AuthorizationRef, expired: boolean): Promise<AuthorizationOutcome>;
  /** Whether the transaction a service named settled this quote's signature, and for how much. */
  proveSettlement(chain: ChainReader, quote: SchemeQuote, txHash: `0x${string}`): Promise<ProvenSettlement | undefined>;
  /** What the chain must allow before signing (read beside the balance); undefined: nothing. */
  readiness(chain: ChainReader, payer: `0x${string}`, amount: bigint): Promise<Readiness> | undefined;
  /** What stops a payment in that readiness, in words that end before "; nothing was signed"; undefined for `ready`. */
  readinessProblem(readiness: Readiness): string | undefined;

  /**
   * Reserved vs committed: a metered scheme reserves its ceiling and commits what the chain
   * shows moved (`settled`); undefined for a scheme whose settlement is its price.
   */
  settled(quote: SchemeQuote, amount: bigint | undefined, said?: { metering?: Metering; reported?: bigint }): SettledPayment | undefined;
  /** What the service says it used, from a copy of its answer (metered schemes only; `copy` is called only then). */
  readUsage(copy: () => Response): Promise<Metering | undefined> | undefined;
  /** Whether a success with no transaction and nothing settled means "used nothing" (its signature then stays usable). */
  readonly settlesNothingWhenUnused: boolean;

  /** The words for the stream and the quote, and the fields events and the journal carry. */
  words: SchemeWords;
}

export type SchemeWords = {
  /** "asks …" in the quoted event. */
  asks(amount: string): string;
  /** Before "… USDC is over your limit". */
  overLimit(amount: string): string;
  /** The person's approval request. */
  approve(amount: string, service: string): string;
  /** Added to it when the chain does not yet let the signature settle (readiness "not-approved"). */
  approveFirst: string;
  /** "Paying …" while the service verifies. */
  paying(amount: string): string;
  /** The fields a quoted event and a quote carry beside the amount (a ceiling). */
  quoteFields(amount: string): { ceiling?: string };
  /** The journal's extra terms for the quote. */
  journalFields(amount: bigint): { scheme?: "upto"; ceiling?: bigint };
};
