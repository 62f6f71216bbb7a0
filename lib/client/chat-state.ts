/**
 * The chat page's conversation state and the pure reducer that folds stream events into it.
 * An assistant turn keeps its content as ordered parts (text, payment cards, errors, notes) so
 * each thing shows where it happened in the stream. A "my wallet" purchase spans two requests
 * (quote, then signed payment) that both write into the same turn.
 */
import type { ChatMessage, ChatRequestInput } from "@/lib/chat/chat-request";
import { MAX_MESSAGES, MAX_TOTAL_CHARS } from "@/lib/chat/chat-size-limits";
import {
  isForwardStatus,
  type ApprovalRequest,
  type FinishEvent,
  type PaymentEvent,
  type PaymentStatus,
  type StreamEvent,
} from "@/lib/stream";
import { normalizeText } from "@/lib/safety/normalize-text";
import { containsPrivateKey } from "@/lib/safety/private-key-detector";
import { shortHex } from "./format";

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
  | { kind: "text"; key: string; text: string; request: number }
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

export const INITIAL_CHAT_STATE: ChatState = { turns: [] };

/** A problem response received instead of a stream. */
export type RequestProblem = {
  status: number;
  title: string;
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
  | { type: "stopped"; turnId: string; now: number }
  | { type: "decision"; turnId: string; paymentId: string; decision: ApprovalDecision };

const DISCOVERY_STATUSES: ReadonlySet<PaymentStatus> = new Set(["discovering", "discovered"]);
const IN_FLIGHT_STATUSES: ReadonlySet<PaymentStatus> = new Set(["signing", "verifying", "settling", "pending"]);
const SETTLED_STATUSES: ReadonlySet<PaymentStatus> = new Set(["confirmed", "delivered"]);

export function isDiscovery(view: Pick<PaymentView, "status" | "details">): boolean {
  return DISCOVERY_STATUSES.has(view.status) || (view.details.services !== undefined && view.details.amount === undefined);
}

export function isSettled(status: PaymentStatus): boolean {
  return SETTLED_STATUSES.has(status);
}

export function isTurnActive(turn: AssistantTurn): boolean {
  return turn.phase === "waiting" || turn.phase === "streaming";
}

/** What people call each status. */
export const STATUS_LABELS: Record<PaymentStatus, string> = {
  discovering: "Searching for services",
  discovered: "Services found",
  quoted: "Quoted",
  "awaiting-approval": "Waiting for your approval",
  signing: "Signing",
  verifying: "Verifying",
  settling: "Settling on-chain",
  pending: "Pending confirmation",
  confirmed: "Confirmed",
  delivered: "Delivered",
  failed: "Failed",
};

/** The name a person knows a payment by. */
export function serviceNameOf(view: Pick<PaymentView, "details" | "approval">): string {
  const resource = view.details.resource ?? view.approval?.resource;
  if (view.details.service) return view.details.service;
  if (resource) {
    try {
      return new URL(resource).host;
    } catch {
      return resource;
    }
  }
  return "the service";
}

function amountOf(view: PaymentView): string | undefined {
  return view.details.amount ?? view.approval?.amount;
}

function describePayment(view: PaymentView): string {
  const amount = amountOf(view);
  return `${amount ? `the payment of ${amount} USDC` : "the payment"} to ${serviceNameOf(view)}`;
}

/** What happened to the turn's payments when the person pressed Stop. */
export function describeStop(turn: AssistantTurn): string {
  const payments = Object.values(turn.payments).filter((view) => !isDiscovery(view));
  const sentences: string[] = [];
  for (const view of payments.filter((item) => isSettled(item.status))) {
    const hash = view.details.txHash;
    sentences.push(`${capitalize(describePayment(view))} was already confirmed${hash ? `: tx ${shortHex(hash, 10, 8)}` : ""}.`);
  }
  for (const view of payments.filter((item) => IN_FLIGHT_STATUSES.has(item.status))) {
    sentences.push(
      `${capitalize(describePayment(view))} was ${STATUS_LABELS[view.status].toLowerCase()} when you stopped; ` +
        "it may still settle, so check your receipts and balance in a moment.",
    );
  }
  if (sentences.length === 0) {
    const signedButUnreported = payments.some((view) => view.decision === "approved" && !isSettled(view.status) && view.status !== "failed");
    sentences.push(
      signedButUnreported
        ? "Your signature had already been sent; the payment may still be processed, so check your balance in a moment."
        : "Stopped before any payment was signed. Nothing was paid.",
    );
  } else {
    sentences.unshift("Stopped.");
  }
  return sentences.join(" ");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

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
  const view: PaymentView = {
    ...previous,
    status: accepted ? status : previous.status,
    progress: accepted && status !== "failed" ? status : previous.progress,
    details: { ...previous.details, ...definedFields(fields) },
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
      const last = base.parts.at(-1);
      if (last?.kind === "text" && last.request === base.request) {
        const parts = base.parts.slice(0, -1);
        parts.push({ ...last, text: last.text + event.text });
        return { ...base, parts };
      }
      return withPart(base, { kind: "text", text: event.text, request: base.request });
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
      return mapTurn(state, action.assistantId, (turn) => ({ ...turn, phase: "waiting", request: turn.request + 1 }));
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

/** The text the assistant said in a turn, across all its requests. */
export function assistantText(turn: AssistantTurn): string {
  return turn.parts
    .flatMap((part) => (part.kind === "text" ? [part.text] : []))
    .join("\n\n")
    .trim();
}

/** A 0x-prefixed 32-byte hex string standing alone: a settlement hash in the agent's text. */
const PREFIXED_HASH = /\b0x[0-9a-f]{64}\b/gi;

/**
 * The assistant's text as it goes back to the server in the history. The server refuses any
 * message holding 64 hex digits that it cannot tell from a private key, whatever its role, and
 * the agent's answers quote settlement hashes; so hashes are shortened (the full ones stay on
 * the payment cards), and text that would still be refused is left out of the history rather
 * than making every later message fail. The check runs on the server's normalisation, so a hash
 * split by invisible characters is caught too. Only the key rule is repeated here: the seed
 * phrase detector carries the BIP-39 wordlist, too heavy for the page, and it never had an
 * exception for assistant messages, so nothing changed there.
 */
export function assistantHistoryText(turn: AssistantTurn): string | undefined {
  const text = normalizeText(assistantText(turn)).replace(PREFIXED_HASH, (hash) => shortHex(hash, 10, 8));
  if (!text || containsPrivateKey(normalizeText(text))) return undefined;
  return text;
}

/**
 * The conversation as the request body's `messages`, newest last, trimmed from the oldest end
 * to the server's count and size limits. Refused requests and empty answers are left out.
 */
export function buildMessages(turns: readonly Turn[], nextUserText: string): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.role === "user") {
      if (!turn.excluded) history.push({ role: "user", content: turn.content });
      continue;
    }
    const text = assistantHistoryText(turn);
    if (text) history.push({ role: "assistant", content: text });
  }
  history.push({ role: "user", content: nextUserText });
  let total = history.reduce((sum, message) => sum + message.content.length, 0);
  while (history.length > 1 && (history.length > MAX_MESSAGES || total > MAX_TOTAL_CHARS)) {
    const dropped = history.shift() as ChatMessage;
    total -= dropped.content.length;
  }
  return history;
}
