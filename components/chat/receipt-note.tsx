import { shortHex } from "@/lib/client/format";

/** Enough of a receipt's verdict to say it: the stream's `receipt` and the history's both fit. */
export type ReceiptVerdict = { signer: string | null; verified: boolean; reason?: string | null };

/**
 * What the agent made of a service's signed receipt, in one line: who signed it and that it
 * checked out, or why it did not. An unverified receipt is always shown, never left out.
 */
export function ReceiptNote({ receipt, className = "card-message" }: { receipt: ReceiptVerdict; className?: string }) {
  const verified = receipt.verified && receipt.signer !== null;
  return (
    <p
      className={`${className} ${verified ? "card-message--ok" : "card-message--warning"}`}
      data-testid="signed-receipt"
      data-verified={String(verified)}
      title={receipt.signer ?? undefined}
    >
      {verified && receipt.signer ? `Receipt signed by ${shortHex(receipt.signer)}, verified` : `Receipt not verified: ${receipt.reason ?? "unknown reason"}`}
    </p>
  );
}
