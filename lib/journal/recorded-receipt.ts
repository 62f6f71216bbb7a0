/**
 * A payment's signed receipt as the journal keeps it: the verdict the stream showed, and the
 * receipt itself (`signed`, when it was readable) as evidence anyone can verify again later
 * (the offer-receipt spec's artifacts are meant to be lifted out as they are, §9).
 */
import { z } from "zod";
import { PaymentReceipt } from "../stream/payment-receipt";
import { SignedReceipt } from "../x402/signed-receipt";

export const RecordedReceipt = PaymentReceipt.extend({ signed: SignedReceipt.optional() });
export type RecordedReceipt = z.infer<typeof RecordedReceipt>;

/**
 * A stored receipt read back (a jsonb column, as an object or as text). One that no longer
 * reads is reported as unverified rather than dropped: a receipt is never hidden.
 */
export function readRecordedReceipt(value: unknown): RecordedReceipt {
  let json = value;
  if (typeof value === "string") {
    try {
      json = JSON.parse(value);
    } catch {
      json = undefined;
    }
  }
  const parsed = RecordedReceipt.safeParse(json);
  return parsed.success ? parsed.data : { format: null, signer: null, verified: false, reason: "the stored receipt is unreadable" };
}
