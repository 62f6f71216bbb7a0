import type { AskState } from "@/lib/client/approval-state";
import type { FinishEvent, FinishReason } from "@/lib/stream";
import { TransactionHash } from "./transaction-hash";

const FINISH_WORDING: Record<FinishReason, string> = {
  stop: "Finished.",
  "payment-complete": "Payment complete: the purchased data was delivered.",
  "payment-failed": "The payment failed.",
  "limit-exceeded": "Not paid: the payment would exceed your spending limits.",
  "insufficient-balance": "Not paid: the paying wallet does not hold enough USDC.",
  "service-unavailable": "The paid service is unavailable right now.",
};

const TONE: Record<FinishReason, "ok" | "info" | "warning"> = {
  stop: "info",
  "payment-complete": "ok",
  "payment-failed": "warning",
  "limit-exceeded": "warning",
  "insufficient-balance": "warning",
  "service-unavailable": "warning",
};

/** `approval`: where the approval the request ended waiting for stands now; only an open one waits. */
export function finishWording(finish: FinishEvent, approval?: AskState): string {
  if (finish.finishReason === "stop" && finish.pendingApproval) {
    const pending = finish.pendingApproval.approval;
    // A metered quote is a ceiling: "up to" it, never a price.
    const amount = pending.scheme === "upto" ? `up to ${pending.amount}` : pending.amount;
    switch (approval) {
      case "rejected":
        return `You declined the payment of ${amount} USDC: nothing was paid.`;
      case "expired":
        return `The quote for ${amount} USDC expired before you approved it: nothing was paid.`;
      case "approved":
      case "moved-on":
        return `You approved the payment of ${amount} USDC.`;
      default:
        return `Waiting for your approval of ${amount} USDC.`;
    }
  }
  return FINISH_WORDING[finish.finishReason];
}

export function FinishNote({ finish, approval }: { finish: FinishEvent; approval?: AskState }) {
  return (
    <p className={`finish-note finish-note--${TONE[finish.finishReason]}`} data-testid="finish-reason" data-reason={finish.finishReason}>
      <span>{finishWording(finish, approval)}</span>
      {finish.txHash ? (
        <span className="finish-note__tx">
          {" "}
          Last transaction: <TransactionHash hash={finish.txHash} compact />
        </span>
      ) : null}
    </p>
  );
}
