/**
 * Where a run reports, as a listener: a chat turn's text, payment progress, errors and its one
 * finish. The chat's `StreamWriter` is one (it writes the stream's lines); an in-process caller
 * (MCP `ask_agent`, `buy`) plugs in a `CheckedRunListener` and reads the events as objects,
 * with no stream bytes encoded and decoded again. Either way every event passes the stream's
 * schemas and ordering rules, so an MCP caller is told nothing the chat could not have sent.
 */
import { ErrorEvent, FinishEvent, PaymentEvent, PROTOCOL_VERSION, ProtocolViolationError, SequenceRules, type FinishInput, type StreamEvent } from "../stream";
import type { PaymentListener } from "./purchase/payment-listener";

export type RunListener = PaymentListener & {
  /** True once the finish was heard (or nobody listens any more): nothing more is written. */
  readonly isClosed: boolean;
  text(text: string): void;
  error(error: ErrorEvent): void;
  /** The one last event of a run. */
  finish(finish: FinishInput): void;
};

export class CheckedRunListener implements RunListener {
  private readonly rules = new SequenceRules();
  private closed = false;
  /** Every event heard so far, in order, as the stream would have carried it. */
  readonly events: StreamEvent[] = [];

  constructor(private readonly onEvent: (event: StreamEvent) => void = () => {}) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** The payment progress heard so far, in order. */
  get payments(): PaymentEvent[] {
    return this.events.flatMap((event) => (event.type === "payment" ? [event.payment] : []));
  }

  text(text: string): void {
    if (text.length > 0) this.hear({ type: "text", text });
  }

  payment(payment: PaymentEvent): void {
    this.hear({ type: "payment", payment: PaymentEvent.parse({ at: Date.now(), ...payment }) });
  }

  error(error: ErrorEvent): void {
    this.hear({ type: "error", error: ErrorEvent.parse(error) });
  }

  finish(finish: FinishInput): void {
    this.hear({ type: "finish", finish: FinishEvent.parse({ ...finish, protocolVersion: PROTOCOL_VERSION }) });
    this.closed = true;
  }

  statusOf(id: string) {
    return this.rules.statusOf(id);
  }

  private hear(event: StreamEvent): void {
    if (this.closed) throw new ProtocolViolationError("the run has already finished");
    const violation = this.rules.check(event);
    if (violation) throw new ProtocolViolationError(violation);
    this.rules.record(event);
    this.events.push(event);
    try {
      this.onEvent(event);
    } catch {
      // A listener's failure (a notification that cannot be sent) never decides a payment or a turn.
    }
  }
}
