import { PAYMENT_STATUS_ORDER, type PaymentStatus, type StreamEvent } from "./events";

const RANK = new Map<PaymentStatus, number>(PAYMENT_STATUS_ORDER.map((status, index) => [status, index]));

/** True when `next` may follow `previous` for the same progress id. */
export function isForwardStatus(previous: PaymentStatus | undefined, next: PaymentStatus): boolean {
  if (previous === undefined) return true;
  if (next === "failed") return previous !== "failed" && previous !== "delivered";
  return (RANK.get(next) ?? -1) > (RANK.get(previous) ?? -1);
}

/**
 * Tracks the ordering rules of protocol v1 over a sequence of events: statuses of one id only
 * move forward, and nothing follows the one `d:` line. The writer uses it to refuse bad output;
 * tests use it to check whole streams.
 */
export class SequenceRules {
  private readonly statusById = new Map<string, PaymentStatus>();
  private finished = false;

  /** Returns a reason when `event` would break the rules, without recording it. */
  check(event: StreamEvent): string | undefined {
    if (this.finished) return "no event may follow the finish (d:) event";
    if (event.type === "payment") {
      const previous = this.statusById.get(event.payment.id);
      if (!isForwardStatus(previous, event.payment.status)) {
        return `status of ${event.payment.id} moved from ${previous} to ${event.payment.status}`;
      }
    }
    return undefined;
  }

  record(event: StreamEvent): void {
    if (event.type === "finish") this.finished = true;
    if (event.type === "payment") this.statusById.set(event.payment.id, event.payment.status);
  }

  statusOf(id: string): PaymentStatus | undefined {
    return this.statusById.get(id);
  }
}

/** Checks a whole decoded stream; returns the list of violations (empty when valid). */
export function findSequenceViolations(events: readonly StreamEvent[]): string[] {
  const rules = new SequenceRules();
  const violations: string[] = [];
  for (const event of events) {
    const violation = rules.check(event);
    if (violation) violations.push(violation);
    rules.record(event);
  }
  const finishCount = events.filter((event) => event.type === "finish").length;
  if (finishCount !== 1) violations.push(`expected exactly one finish event, found ${finishCount}`);
  else if (events.at(-1)?.type !== "finish") violations.push("the finish event is not the last line");
  return violations;
}
