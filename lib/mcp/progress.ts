/**
 * A payment's progress (the `p:` events the chat streams: quoted, signing, settling, delivered,
 * failed…) as MCP progress notifications, for a client that sent a `progressToken` with its
 * call. `progress` counts the steps sent, so it only grows, as MCP requires; the total is not
 * known in advance (a call may make no payment, or several).
 */
import type { PaymentEvent } from "../stream";

export type ProgressNotification = {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; message: string };
};

/** One line for a person: the step, what and how much, then the step's own message. */
export function describeProgress(payment: PaymentEvent): string {
  const subject = [payment.service, payment.amount === undefined ? undefined : `${payment.amount} USDC`, payment.txHash].filter((part) => part !== undefined);
  const head = subject.length > 0 ? `${payment.status} (${subject.join(", ")})` : payment.status;
  return payment.message ? `${head}: ${payment.message}` : head;
}

/**
 * The reporter for one call: a no-op without a token; otherwise each event becomes one
 * notification. A notification that cannot be sent (the client went away) is dropped: progress
 * never decides a payment.
 */
export function progressReporter(
  progressToken: string | number | undefined,
  send: (notification: ProgressNotification) => Promise<void>,
): (payment: PaymentEvent) => void {
  if (progressToken === undefined) return () => {};
  let progress = 0;
  return (payment) => {
    progress += 1;
    send({ method: "notifications/progress", params: { progressToken, progress, message: describeProgress(payment) } }).catch(() => undefined);
  };
}
