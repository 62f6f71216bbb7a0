/**
 * Where a purchase's progress goes, as a listener: the payment tracker reports each step to it.
 * The chat's `StreamWriter` is one (it writes `p:` lines); MCP's progress notifications are
 * another, plugged in directly (`CheckedPaymentListener`), with no stream bytes encoded and
 * decoded again in between. Either way each event passes the stream's schema and ordering rules.
 */
import { PaymentEvent, ProtocolViolationError, SequenceRules, type StreamWriter } from "../../stream";

export type PaymentListener = Pick<StreamWriter, "payment" | "statusOf">;

export class CheckedPaymentListener implements PaymentListener {
  private readonly rules = new SequenceRules();
  /** Every event heard so far, in order, as the stream would have carried it. */
  readonly events: PaymentEvent[] = [];

  constructor(private readonly onPayment: (payment: PaymentEvent) => void = () => {}) {}

  payment(payment: PaymentEvent): void {
    const event = { type: "payment" as const, payment: PaymentEvent.parse({ at: Date.now(), ...payment }) };
    const violation = this.rules.check(event);
    if (violation) throw new ProtocolViolationError(violation);
    this.rules.record(event);
    this.events.push(event.payment);
    try {
      this.onPayment(event.payment);
    } catch {
      // A listener's failure (a notification that cannot be sent) never decides a payment.
    }
  }

  statusOf(id: string) {
    return this.rules.statusOf(id);
  }
}
