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

export function finishWording(finish: FinishEvent): string {
  if (finish.finishReason === "stop" && finish.pendingApproval) {
    return `Waiting for your approval of ${finish.pendingApproval.approval.amount} USDC.`;
  }
  return FINISH_WORDING[finish.finishReason];
}

export function FinishNote({ finish }: { finish: FinishEvent }) {
  return (
    <p className={`finish-note finish-note--${TONE[finish.finishReason]}`} data-testid="finish-reason" data-reason={finish.finishReason}>
      <span>{finishWording(finish)}</span>
      {finish.txHash ? (
        <span className="finish-note__tx">
          {" "}
          Last transaction: <TransactionHash hash={finish.txHash} compact />
        </span>
      ) : null}
    </p>
  );
}
