import { useEffect, useState } from "react";
import { hasOpenAsk, pendingApprovalState, staleAskParts, type AskState } from "./approval-state";
import type { AssistantTurn } from "./chat-types";

export type TurnAskState = {
  /** Keys of the text parts that asked a question now answered or expired. */
  staleParts: ReadonlySet<string>;
  /** Where the approval the turn ended waiting for stands (see FinishNote). */
  pendingApproval: AskState | undefined;
};

/**
 * How the turn's questions to the person stand. The clock runs (once a second) only while one
 * is still open, so that an expiry shows on time and a finished turn costs nothing.
 */
export function useAskState(turn: AssistantTurn): TurnAskState {
  const [now, setNow] = useState(() => Date.now());
  const open = hasOpenAsk(turn, now);
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [open]);
  return { staleParts: staleAskParts(turn, now), pendingApproval: pendingApprovalState(turn, now) };
}
