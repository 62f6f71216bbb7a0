/**
 * The shapes of the chat page's conversation: turns, their parts and payments, and the actions
 * the reducer (chat-state.ts) folds into them.
 */
import type { ChatRequestInput } from "@/lib/stream/chat-request";
import type { ApprovalRequest, FinishEvent, PaymentEvent, PaymentStatus, StreamEvent } from "@/lib/stream";

export type ApprovalDecision = "approved" | "rejected";

export type PaymentView = {
  id: string;
  status: PaymentStatus;
  /** The furthest status reached before any failure: where a failed payment stopped. */
  progress: PaymentStatus;
  /** Everything known so far: later events override earlier fields they carry. */
  details: Omit<PaymentEvent, "id" | "status">;
  /** The approval request, kept once seen (the awaiting-approval event carries it). */
  approval: ApprovalRequest | undefined;
  /** Client clock (ms) of the first and latest event, and of the end of its activity. */
  firstSeenAt: number;
  updatedAt: number;
  endedAt: number | undefined;
  /** Which request of the turn last wrote it; statuses only move forward within one request. */
  request: number;
  decision: ApprovalDecision | undefined;
};

export type NoticeTone = "info" | "warning" | "error";

export type TurnPart =
  /**
   * `asks`: the payment whose approval (or go-ahead) this text asked for, written while the
   * request waited on it; hidden once that is answered or expired (approval-state.ts).
   */
  | { kind: "text"; key: string; text: string; request: number; asks?: string }
  | { kind: "payment"; key: string; id: string }
  | { kind: "error"; key: string; code: string; message: string }
  | { kind: "notice"; key: string; tone: NoticeTone; text: string; role: "stopped" | "problem" | "info" };

export type TurnPhase = "waiting" | "streaming" | "done" | "stopped" | "failed";

export type AssistantTurn = {
  role: "assistant";
  id: string;
  parts: TurnPart[];
  payments: Record<string, PaymentView>;
  finish: FinishEvent | undefined;
  phase: TurnPhase;
  /** 1 for the first request of the turn, 2 after a signed retry, and so on. */
  request: number;
  /** The exact body of the turn's first request; a signed retry repeats it unchanged. */
  requestBody: ChatRequestInput;
  /** "agent", or the paying wallet's address. */
  payer: string;
  malformed: number;
};

export type UserTurn = { role: "user"; id: string; content: string; excluded: boolean };

export type Turn = UserTurn | AssistantTurn;

export type ChatState = { turns: Turn[] };

/** A problem response received instead of a stream. */
export type RequestProblem = {
  status: number;
  title: string;
  /** The server's stable error code (`forbidden:grant_ended`), when its body names one. */
  code?: string;
  detail: string;
  retryAfterSeconds: number | undefined;
  fieldErrors: { path: string; message: string }[];
};

export type ChatAction =
  | {
      type: "request-started";
      assistantId: string;
      user: UserTurn | undefined;
      body: ChatRequestInput;
      payer: string;
      now: number;
    }
  | { type: "event"; turnId: string; event: StreamEvent; now: number }
  | { type: "malformed"; turnId: string }
  | { type: "problem"; turnId: string; problem: RequestProblem; now: number }
  | { type: "connection-failed"; turnId: string; message: string; now: number }
  | { type: "stream-ended"; turnId: string; now: number }
  /** Something the server said about the request besides its stream (e.g. lowered limits). */
  | { type: "notice"; turnId: string; text: string }
  | { type: "stopped"; turnId: string; now: number }
  | { type: "decision"; turnId: string; paymentId: string; decision: ApprovalDecision };
