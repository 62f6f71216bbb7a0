import "server-only";
/**
 * The signed receipt of a delivered payment, checked against the quote that was paid and the
 * settlement the chain proved (lib/x402/payment-receipt.ts), as fields of the `delivered`
 * update: `receipt` for the stream and the journal, `signedReceipt` (the artifact) for the
 * journal only. A service that sent no receipt adds nothing.
 */
import { checkReceiptOf } from "../../x402/payment-receipt";
import type { PaymentUpdate } from "./payment-tracker";
import type { PurchaseDependencies, Quote } from "./purchase-types";

export async function deliveredReceipt(
  deps: Pick<PurchaseDependencies, "network" | "now">,
  quote: Quote,
  /** The settlement the service reported, decoded (it carries the receipt). */
  settlement: unknown,
  txHash: `0x${string}`,
): Promise<Pick<PaymentUpdate, "receipt" | "signedReceipt">> {
  const checked = await checkReceiptOf(settlement, {
    // The URL asked for, and the resource the payment payload named (v2), are both what was paid for.
    resourceUrls: [quote.url, ...(quote.resource ? [quote.resource.url] : [])],
    // Receipts name the chain in CAIP-2 even for x402 v1 services (spec §5.2).
    network: deps.network.caip2,
    payer: quote.payer,
    payTo: quote.option.payTo,
    txHash,
    paidFrom: Number(quote.validAfter),
    now: deps.now(),
  });
  if (!checked) return {};
  return { receipt: checked.receipt, ...(checked.signed ? { signedReceipt: checked.signed } : {}) };
}
