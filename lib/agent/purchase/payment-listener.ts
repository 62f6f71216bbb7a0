/**
 * Where a purchase's progress goes, as a listener: the payment tracker reports each step to it.
 * The chat's `StreamWriter` is one (it writes `p:` lines); MCP's progress notifications are
 * another, plugged in directly (`CheckedRunListener`, run-listener.ts), with no stream bytes
 * encoded and decoded again in between. Either way each event passes the stream's schema and
 * ordering rules. The listener names only the event's shape (the contract's `PaymentEvent`),
 * not a writer: the purchase core knows no transport of its progress.
 */
import type { PaymentEvent, PaymentStatus } from "../../stream";

export interface PaymentListener {
  /** One step of a payment, as the contract shapes it; `at` is stamped by the listener. */
  payment(payment: PaymentEvent): void;
  /** The last status heard for a payment, so a step is never reported twice or out of order. */
  statusOf(id: string): PaymentStatus | undefined;
}
