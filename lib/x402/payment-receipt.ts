import "server-only";
/**
 * Checks the signed receipt a paid service returns with its settlement (x402 `offer-receipt`
 * extension, `PAYMENT-RESPONSE` → `extensions["offer-receipt"].info.receipt`, spec §5.1). The
 * receipt is the service's untrusted text: bounded, read with zod, and verified as spec §5.5
 * says, then held against what this agent actually paid:
 *
 * - the signature recovers a signer (EIP-712 with the spec's canonical types, or an ES256K JWS);
 * - the signer is the quote's `payTo` (§4.5.1, "`payTo` address signing");
 * - `resourceUrl`, `network` (CAIP-2), `payer` and, when present, `transaction` are the ones paid;
 * - `issuedAt` falls between the authorization's `validAfter` and now, give or take clock skew
 *   (§5.5 step 6 leaves the policy to the verifier): a receipt cannot predate its payment, and
 *   a service that answers a repeat with its first answer (payment-identifier) may send one
 *   issued minutes ago.
 *
 * A receipt carries no amount (§5.2): the amount is bound through `transaction`, which the
 * agent has already proven on chain moved exactly the quoted amount under this authorization.
 * Nothing here ever throws: a receipt that fails is reported, with why, never hidden.
 */
import { hashReceiptTypedData } from "@x402/extensions/offer-receipt";
import { getAddress, type Address, type Hex } from "viem";
import type { PaymentReceipt } from "../stream";
import { withinJsonLimits } from "../json-limits";
import { decodeSettlementHeader } from "./read-settlement";
import { verifyJwsReceipt } from "./jws-receipt";
import { recoverSigner } from "../crypto/secp256k1";
import { ReceiptPayload, SignedReceipt } from "./signed-receipt";

/** How far the service's clock may be from ours when it stamps `issuedAt`. */
export const RECEIPT_CLOCK_SKEW_SECONDS = 600;
const RECEIPT_LIMITS = { maxDepth: 4, maxNodes: 64, maxStringChars: 8192 } as const;

/** What was paid, as this agent knows it (never as the receipt says). */
export type PaidTerms = {
  /** The URLs the payment was for: the one requested and the 402's `resource.url`, if any. */
  resourceUrls: readonly string[];
  /** CAIP-2 id of the chain paid on. */
  network: string;
  payer: Address;
  payTo: Address;
  txHash: `0x${string}`;
  /** Unix seconds from which the payment could exist: its authorization's `validAfter`. */
  paidFrom: number;
  /** Epoch ms. */
  now: number;
};

/** The verdict for the stream, and the receipt itself (when readable) for the journal. */
export type CheckedReceipt = { receipt: PaymentReceipt; signed: SignedReceipt | undefined };

/** The receipt a settlement header carries, or undefined when the service sent none. */
export function receiptInSettlement(headers: Headers): { value: unknown } | undefined {
  return receiptIn(decodeSettlementHeader(headers));
}

/** The receipt a decoded settlement carries (a header's, or an MCP result's `_meta`), or undefined. */
function receiptIn(settlement: unknown): { value: unknown } | undefined {
  const value = dig(settlement, ["extensions", "offer-receipt", "info", "receipt"]);
  return value === undefined ? undefined : { value };
}

/** Reads and checks the receipt of a settled answer; undefined when there is none. */
export async function checkSettlementReceipt(headers: Headers, paid: PaidTerms): Promise<CheckedReceipt | undefined> {
  return checkReceiptOf(decodeSettlementHeader(headers), paid);
}

/** The same, from a settlement as a transport hands it over, decoded. */
export async function checkReceiptOf(settlement: unknown, paid: PaidTerms): Promise<CheckedReceipt | undefined> {
  const found = receiptIn(settlement);
  return found ? verifyPaymentReceipt(found.value, paid) : undefined;
}

export async function verifyPaymentReceipt(value: unknown, paid: PaidTerms): Promise<CheckedReceipt> {
  const format = formatOf(value);
  if (!withinJsonLimits(value, RECEIPT_LIMITS)) return unverified(format, null, "the receipt is too large or too deeply nested");
  const parsed = SignedReceipt.safeParse(value);
  if (!parsed.success) return unverified(format, null, `the receipt is malformed (${parsed.error.issues[0]?.path.join(".") || "shape"})`);
  const signed = parsed.data;

  let signer: Address;
  let payload: ReceiptPayload;
  if (signed.format === "eip712") {
    if (signed.payload.version !== 1) return unverified(format, null, `receipt version ${signed.payload.version} is not supported`, signed);
    try {
      // The extension's own EIP-712 hash of the receipt; the signer recovered from it.
      signer = getAddress(await recoverSigner(hashReceiptTypedData(signed.payload), signed.signature as Hex));
    } catch {
      return unverified(format, null, "its signature could not be recovered", signed);
    }
    payload = signed.payload;
  } else {
    const checked = await verifyJwsReceipt(signed.signature);
    if (!checked.ok) return unverified(format, checked.signer, checked.reason, signed);
    const inner = ReceiptPayload.safeParse(checked.payload);
    if (!inner.success) return unverified(format, checked.signer, "its JWS payload is malformed", signed);
    if (inner.data.version !== 1) return unverified(format, checked.signer, `receipt version ${inner.data.version} is not supported`, signed);
    signer = checked.signer;
    payload = inner.data;
  }

  const mismatch = mismatchWith(payload, signer, paid);
  const facts = {
    issuedAt: payload.issuedAt,
    ...(/^0x[0-9a-fA-F]{64}$/.test(payload.transaction) ? { transaction: payload.transaction } : {}),
  };
  return {
    receipt: { format, signer, verified: mismatch === undefined, ...(mismatch ? { reason: mismatch } : {}), ...facts },
    signed,
  };
}

/** The first way the receipt disagrees with what was paid, for a person; undefined when none. */
function mismatchWith(payload: ReceiptPayload, signer: Address, paid: PaidTerms): string | undefined {
  if (signer.toLowerCase() !== paid.payTo.toLowerCase()) return `signed by ${signer}, not by the payee ${paid.payTo}`;
  if (payload.network !== paid.network) return "it names another network than the one paid on";
  if (payload.payer.toLowerCase() !== paid.payer.toLowerCase()) return "it names another payer";
  const resource = normalUrl(payload.resourceUrl);
  if (!resource || !paid.resourceUrls.some((url) => normalUrl(url) === resource)) return "it names another resource than the one paid for";
  // "" is the spec's "not included" (§5.3): privacy-minimal, not a mismatch.
  if (payload.transaction !== "" && payload.transaction.toLowerCase() !== paid.txHash.toLowerCase()) return "it names another transaction than the settlement";
  const nowSeconds = Math.floor(paid.now / 1000);
  if (payload.issuedAt < paid.paidFrom - RECEIPT_CLOCK_SKEW_SECONDS || payload.issuedAt > nowSeconds + RECEIPT_CLOCK_SKEW_SECONDS)
    return "its issue time is before the payment or in the future";
  return undefined;
}

function unverified(format: PaymentReceipt["format"], signer: Address | null, reason: string, signed?: SignedReceipt): CheckedReceipt {
  return { receipt: { format, signer, verified: false, reason: reason.slice(0, 200) }, signed };
}

function formatOf(value: unknown): PaymentReceipt["format"] {
  const format = dig(value, ["format"]);
  return format === "eip712" || format === "jws" ? format : null;
}

/** URLs compared as the WHATWG parser writes them, so `%20` and ` ` or a default port agree. */
function normalUrl(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

function dig(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
