/**
 * The offer readers, by scheme name: the 402 parser asks the reader registered under an
 * offer's `scheme` (as the official x402 client asks its registered schemes) and reads an
 * option only through it. A new scheme adds its reader here and its paying half in
 * lib/agent/purchase/schemes/.
 */
import { batchSettlementOffer } from "./batch-settlement-offer";
import { exactOffer } from "./exact-offer";
import type { OfferReader, SchemeName } from "./payable-option";
import { uptoOffer } from "./upto-offer";

export const OFFER_READERS: readonly OfferReader[] = [exactOffer, uptoOffer, batchSettlementOffer];

/** The scheme whose absence the journal writes as NULL: a row without a scheme is one of these. */
export const DEFAULT_SCHEME = exactOffer.name;

/** The reader registered under a name the service wrote; undefined for a scheme this code does not read. */
export function offerReaderFor(name: unknown): OfferReader | undefined {
  return OFFER_READERS.find((reader) => reader.name === name);
}

/** A scheme name read back from storage: one of ours other than the default, else undefined. */
export function storedSchemeOf(value: unknown): Exclude<SchemeName, typeof DEFAULT_SCHEME> | undefined {
  const reader = offerReaderFor(value);
  const name = reader?.name;
  return name === undefined || name === DEFAULT_SCHEME ? undefined : name;
}
