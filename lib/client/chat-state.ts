/**
 * The chat page's conversation state and the pure reducer that folds stream events into it.
 * An assistant turn keeps its content as ordered parts (text, payment cards, errors, notes) so
 * each thing shows where it happened in the stream. A "my wallet" purchase spans two requests
 * (quote, then signed payment) that both write into the same turn.
 */
import { isForwardStatus, type FinishEvent, type PaymentEvent, type StreamEvent } from "@/lib/stream";
import type { AssistantTurn, ChatAction, ChatState, PaymentView, RequestProblem, TurnPart } from "./chat-types";
import { askingPaymentOf } from "./approval-state";
import { describeStop, isTurnActive } from "./payment-view";

export const INITIAL_CHAT_STATE: ChatState = { turns: [] };

function mapTurn(state: ChatState, turnId: string, update: (turn: AssistantTurn) => AssistantTurn): ChatState {
  let changed = false;
  const turns = state.turns.map((turn) => {
    if (turn.role !== "assistant" || turn.id !== turnId) return turn;
    changed = true;
    return update(turn);
  });
  return changed ? { turns } : state;
}

type PartInput = TurnPart extends infer Part ? (Part extends TurnPart ? Omit<Part, "key"> : never) : never;

function withPart(turn: AssistantTurn, part: PartInput): AssistantTurn {
  const key = `${part.kind}-${turn.parts.length}`;
  return { ...turn, parts: [...turn.parts, { ...part, key } as TurnPart] };
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

function applyPayment(turn: AssistantTurn, event: PaymentEvent, now: number): AssistantTurn {
  const { id, status, ...fields } = event;
  const previous = turn.payments[id];
  const ends = status === "delivered" || status === "failed";
  if (!previous) {
    const view: PaymentView = {
      id,
      status,
      progress: status,
      details: definedFields(fields),
      approval: fields.approval,
      firstSeenAt: now,
      updatedAt: now,
      endedAt: ends ? now : undefined,
      request: turn.request,
      decision: undefined,
    };
    const next = { ...turn, payments: { ...turn.payments, [id]: view } };
    return withPart(next, { kind: "payment", id });
  }
  // Within one request the server only moves a status forward; a later request (the signed
  // retry of an approval) may legitimately restart the same payment's progress.
  const accepted = previous.request !== turn.request || isForwardStatus(previous.status, status);
  // The words that asked for the approval ("Approve … in your wallet") go when the payment moves on.
  const { message: _asked, ...kept } = previous.details;
  const leftAsk = accepted && previous.status === "awaiting-approval" && status !== "awaiting-approval";
  const view: PaymentView = {
    ...previous,
    status: accepted ? status : previous.status,
    progress: accepted && status !== "failed" ? status : previous.progress,
    details: { ...(leftAsk ? kept : previous.details), ...definedFields(fields) },
    approval: fields.approval ?? previous.approval,
    updatedAt: now,
    endedAt: accepted && ends ? now : accepted ? undefined : previous.endedAt,
    request: turn.request,
  };
  return { ...turn, payments: { ...turn.payments, [id]: view } };
}

function applyFinish(turn: AssistantTurn, finish: FinishEvent, now: number): AssistantTurn {
  const payments = { ...turn.payments };
  for (const summary of finish.payments) {
    const view = payments[summary.id];
    if (!view) continue;
    const forward = isForwardStatus(view.status, summary.status) && view.status !== summary.status;
    payments[summary.id] = {
      ...view,
      status: forward ? summary.status : view.status,
      progress: forward && summary.status !== "failed" ? summary.status : view.progress,
      details: {
        ...view.details,
        ...(summary.txHash ? { txHash: summary.txHash } : {}),
        ...(summary.reason ? { reason: summary.reason } : {}),
      },
    };
  }
  for (const [id, view] of Object.entries(payments)) {
    if (view.endedAt === undefined) payments[id] = { ...view, endedAt: now };
  }
  const pending = finish.pendingApproval;
  if (pending && payments[pending.id]) {
    const view = payments[pending.id] as PaymentView;
    payments[pending.id] = { ...view, approval: view.approval ?? pending.approval };
  }
  let next: AssistantTurn = { ...turn, payments, finish, phase: "done" };
  if (pending && !turn.payments[pending.id]) {
    // The approval was only named in the finish event: give it a card all the same.
    next = applyPayment(next, { id: pending.id, status: "awaiting-approval", approval: pending.approval }, now);
    const view = next.payments[pending.id] as PaymentView;
    next = { ...next, payments: { ...next.payments, [pending.id]: { ...view, endedAt: now } } };
  }
  return next;
}

function applyEvent(turn: AssistantTurn, event: StreamEvent, now: number): AssistantTurn {
  const base: AssistantTurn = turn.phase === "waiting" ? { ...turn, phase: "streaming" } : turn;
  switch (event.type) {
    case "text": {
      // Text that follows a question this request asks is the ask itself (the agent stops at an
      // approval): it is kept apart, so that it can go once the question is answered.
      const asks = askingPaymentOf(base);
      const last = base.parts.at(-1);
      if (last?.kind === "text" && last.request === base.request && last.asks === asks) {
        const parts = base.parts.slice(0, -1);
        parts.push({ ...last, text: last.text + event.text });
        return { ...base, parts };
      }
      return withPart(base, { kind: "text", text: event.text, request: base.request, ...(asks ? { asks } : {}) });
    }
    case "payment":
      return applyPayment(base, event.payment, now);
    case "error":
      return withPart(base, { kind: "error", code: event.error.code, message: event.error.message });
    case "finish":
      return applyFinish(base, event.finish, now);
  }
}

function endPayments(turn: AssistantTurn, now: number): AssistantTurn {
  const payments = { ...turn.payments };
  for (const [id, view] of Object.entries(payments)) {
    if (view.endedAt === undefined) payments[id] = { ...view, endedAt: now };
  }
  return { ...turn, payments };
}

export function describeProblem(problem: RequestProblem): string {
  const fields = problem.fieldErrors.map((error) => `${error.path}: ${error.message}`).join("; ");
  const base = problem.detail || problem.title;
  return fields ? `${base} (${fields})` : base;
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "request-started": {
      if (action.user) {
        const turn: AssistantTurn = {
          role: "assistant",
          id: action.assistantId,
          parts: [],
          payments: {},
          finish: undefined,
          phase: "waiting",
          request: 1,
          requestBody: action.body,
          payer: action.payer,
          malformed: 0,
        };
        return { turns: [...state.turns, action.user, turn] };
      }
      // The previous request's outcome ("Waiting for your approval …") is the past: the new
      // request ends with its own.
      return mapTurn(state, action.assistantId, (turn) => ({ ...turn, phase: "waiting", request: turn.request + 1, finish: undefined }));
    }
    case "event":
      return mapTurn(state, action.turnId, (turn) => applyEvent(turn, action.event, action.now));
    case "malformed":
      return mapTurn(state, action.turnId, (turn) => ({ ...turn, malformed: turn.malformed + 1 }));
    case "problem": {
      let excludedUser: string | undefined;
      const next = mapTurn(state, action.turnId, (turn) => {
        // A first request that was refused never reached the agent: leave it out of the history.
        if (turn.request === 1 && turn.parts.length === 0) {
          const index = state.turns.findIndex((item) => item.id === turn.id);
          const user = state.turns[index - 1];
          if (user?.role === "user") excludedUser = user.id;
        }
        const ended = endPayments({ ...turn, phase: "failed" }, action.now);
        return withPart(ended, { kind: "notice", tone: "error", role: "problem", text: describeProblem(action.problem) });
      });
      if (!excludedUser) return next;
      return {
        turns: next.turns.map((turn) => (turn.role === "user" && turn.id === excludedUser ? { ...turn, excluded: true } : turn)),
      };
    }
    case "connection-failed":
      return mapTurn(state, action.turnId, (turn) =>
        withPart(endPayments({ ...turn, phase: "failed" }, action.now), {
          kind: "notice",
          tone: "error",
          role: "problem",
          text: action.message,
        }),
      );
    case "notice":
      return mapTurn(state, action.turnId, (turn) => withPart(turn, { kind: "notice", tone: "info", role: "info", text: action.text }));
    case "stream-ended":
      return mapTurn(state, action.turnId, (turn) => {
        if (turn.phase === "done" || turn.phase === "stopped" || turn.phase === "failed") return turn;
        return withPart(endPayments({ ...turn, phase: "failed" }, action.now), {
          kind: "notice",
          tone: "warning",
          role: "problem",
          text: "The connection closed before the answer finished. Check your receipts before trying again.",
        });
      });
    case "stopped":
      return mapTurn(state, action.turnId, (turn) => {
        if (!isTurnActive(turn)) return turn;
        return withPart(endPayments({ ...turn, phase: "stopped" }, action.now), {
          kind: "notice",
          tone: "warning",
          role: "stopped",
          text: describeStop(turn),
        });
      });
    case "decision":
      return mapTurn(state, action.turnId, (turn) => {
        const view = turn.payments[action.paymentId];
        if (!view) return turn;
        return { ...turn, payments: { ...turn.payments, [action.paymentId]: { ...view, decision: action.decision } } };
      });
  }
}
