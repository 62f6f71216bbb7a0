/**
 * Where a payment's question to the person stands (a wallet approval, or the go-ahead for the
 * agent wallet), and which of the turn's words asked it. Once the question is answered or has
 * expired, nothing on the page may still ask it: the card shows how it ended, and the text that
 * asked ("Approve … to continue") is left out of the page and of the history sent back.
 */
import type { AssistantTurn, PaymentView } from "./chat-types";

/**
 * - "open": still waiting for the person;
 * - "approved" / "rejected": the person decided on this page;
 * - "expired": the quote ran out before a decision;
 * - "moved-on": the payment went on without a decision made here (an earlier attempt's outcome).
 */
export type AskState = "open" | "approved" | "rejected" | "expired" | "moved-on";

type AskingView = Pick<PaymentView, "status" | "decision" | "approval" | "details">;

/** How long the question may be answered, in unix seconds; undefined when it never asked. */
function askExpiresAt(view: AskingView): number | undefined {
  return view.approval?.expiresAt ?? view.details.confirmation?.expiresAt;
}

/** The state of the payment's question, or undefined when it never asked one. */
export function askStateOf(view: AskingView, nowMs: number): AskState | undefined {
  const expiresAt = askExpiresAt(view);
  if (expiresAt === undefined) return undefined;
  if (view.decision) return view.decision;
  if (view.status !== "awaiting-approval") return "moved-on";
  return expiresAt * 1000 <= nowMs ? "expired" : "open";
}

/** The payment that the turn's current request is asking about, if any (text now is the ask). */
export function askingPaymentOf(turn: AssistantTurn): string | undefined {
  let asking: string | undefined;
  for (const part of turn.parts) {
    if (part.kind !== "payment") continue;
    const view = turn.payments[part.id];
    if (view && view.request === turn.request && view.status === "awaiting-approval" && view.decision === undefined && askExpiresAt(view) !== undefined)
      asking = view.id;
  }
  return asking;
}

/** True while a payment of the turn asks a question still open at `nowMs`: its clock must run. */
export function hasOpenAsk(turn: AssistantTurn, nowMs: number): boolean {
  return Object.values(turn.payments).some((view) => askStateOf(view, nowMs) === "open");
}

/** Where the approval the turn's last request ended waiting for stands, if it ended so. */
export function pendingApprovalState(turn: AssistantTurn, nowMs: number): AskState | undefined {
  const pending = turn.finish?.pendingApproval;
  if (!pending) return undefined;
  const view = turn.payments[pending.id];
  return view ? askStateOf(view, nowMs) : pending.approval.expiresAt * 1000 <= nowMs ? "expired" : "open";
}

/** Keys of the text parts that asked a question now answered or expired. */
export function staleAskParts(turn: AssistantTurn, nowMs: number): ReadonlySet<string> {
  const stale = new Set<string>();
  for (const part of turn.parts) {
    if (part.kind !== "text" || part.asks === undefined) continue;
    const view = turn.payments[part.asks];
    const state = view ? askStateOf(view, nowMs) : undefined;
    if (state !== undefined && state !== "open") stale.add(part.key);
  }
  return stale;
}
