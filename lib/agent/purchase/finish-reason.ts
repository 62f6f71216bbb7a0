/** The finish reason a request ends with when its last failed payment failed for `reason`. */
import type { FinishReason, PaymentFailureReason } from "../../stream";

export function finishReasonForFailure(reason: PaymentFailureReason | undefined): FinishReason {
  switch (reason) {
    case "limit-exceeded":
    case "insufficient-balance":
    case "service-unavailable":
    case "payment-failed":
      return reason;
    case "rejected":
      return "stop";
    default:
      return "payment-failed";
  }
}
