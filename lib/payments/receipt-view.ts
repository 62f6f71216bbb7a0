/**
 * A payment's signed receipt as `GET /api/payments` shows it: the verdict (format, signer,
 * verified, reason, issue time as ISO 8601, transaction) and the receipt itself, so a caller
 * can check it again or hand it on. The CSV flattens the verdict into three columns.
 */
import type { RecordedReceipt } from "../journal/recorded-receipt";
import type { SignedReceipt } from "../x402/signed-receipt";

export type ReceiptView = {
  format: "eip712" | "jws" | null;
  signer: string | null;
  verified: boolean;
  reason: string | null;
  issuedAt: string | null;
  transaction: string | null;
  /** The receipt exactly as far as it was read (bounded, known fields only); null when unreadable. */
  signed: SignedReceipt | null;
};

export function toReceiptView(receipt: RecordedReceipt | undefined): ReceiptView | null {
  if (!receipt) return null;
  return {
    format: receipt.format,
    signer: receipt.signer,
    verified: receipt.verified,
    reason: receipt.reason ?? null,
    issuedAt: receipt.issuedAt === undefined ? null : new Date(receipt.issuedAt * 1000).toISOString(),
    transaction: receipt.transaction ?? null,
    signed: receipt.signed ?? null,
  };
}

/** The CSV columns after the payment's own, in order. */
export const RECEIPT_CSV_FIELDS = ["receiptSigner", "receiptVerified", "receiptReason"] as const;

/** Empty cells for no receipt; `true`/`false` for its verdict. */
export function receiptCsvCells(receipt: ReceiptView | null): (string | null)[] {
  if (!receipt) return [null, null, null];
  return [receipt.signer, String(receipt.verified), receipt.reason];
}
