/**
 * What a payable option is once a scheme's offer reader has read it, and what an offer reader
 * is: the wire half of a payment scheme (lib/agent/purchase/schemes/ holds the paying half).
 * The 402 parser (payment-requirements.ts) asks the reader registered under an offer's scheme
 * name, as the official x402 client asks its registered schemes, and never tests a name itself.
 */
import { z } from "zod";

export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
export const baseUnits = z.string().regex(/^\d{1,30}$/);
/**
 * An x402 v2 network: a CAIP-2 id (`namespace:reference`), as the protocol's v2 types name it.
 * A v2 option naming a v1 network name is not read: its payload could not be the SDK's.
 */
export const caip2Network = z.string().includes(":");

/**
 * When an offer's money moves (`extra.paymentFlow`, the names x402's SDK reads): `authorization`
 * (the default) settles after the service has done the work, `upfront` before it, `escrow` in
 * several settlements. An offer naming any other flow is not read, as the official client does.
 */
export const PAYMENT_FLOWS = ["authorization", "upfront", "escrow"] as const;
export type PaymentFlow = (typeof PAYMENT_FLOWS)[number];

/**
 * The schemes this code can pay: `exact` (EIP-3009), `upto` (Permit2, x402 v2) and
 * `batch-settlement` (a payment channel: one deposit, then a signed cumulative voucher per call).
 */
export type SchemeName = "exact" | "upto" | "batch-settlement";

/**
 * A `batch-settlement` option's channel terms (its extra): who signs the service's claims and
 * refunds, how long a payer's own withdrawal waits, and the deposit the service suggests.
 */
export type ChannelTerms = { receiverAuthorizer: `0x${string}`; withdrawDelay: number; minDeposit?: bigint };

/** One payable option, frozen from the service's answer. */
export type PayableRequirement = {
  x402Version: 1 | 2;
  /** The requirement object exactly as the service sent it. */
  requirements: Record<string, unknown>;
  amount: bigint;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  network: string;
  maxTimeoutSeconds: number;
  domain: { name: string; version: string };
  /**
   * Present for an `upto` option: `amount` is then the ceiling the payer signs, and the service
   * settles what it used, at most that. `unitPrice` is the price per unit the 402 declared.
   * Read only by the upto scheme's modules (upto-offer.ts, upto-permit2.ts, upto-scheme.ts).
   */
  upto?: { facilitator: `0x${string}`; unitPrice?: bigint };
  /**
   * Present for a `batch-settlement` option: `amount` is the price of one call, paid by a voucher
   * on a channel with these terms. Read only by the channel modules (batch-settlement-offer.ts,
   * lib/agent/purchase/channels/, the batch-settlement scheme).
   */
  channel?: ChannelTerms;
  /** Present when the offer settles before the service does the work (`paymentFlow: "upfront"`); the quote says so. */
  upfront?: true;
};

/** A scheme's reader of the options it owns in a 402. */
export type OfferReader = {
  readonly name: SchemeName;
  /**
   * Whether `amount` is a ceiling the service settles part of (metered) rather than the price.
   * Between schemes the selection prefers a known price that fits (payment-requirements.ts).
   */
  readonly metered: boolean;
  /** The payment flows this scheme's paying half implements (the SDK's exact: authorization and upfront; upto: authorization). */
  readonly flows: readonly PaymentFlow[];
  /** The option, when it is well-formed for this scheme in this x402 version; else undefined. */
  read(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined;
};
