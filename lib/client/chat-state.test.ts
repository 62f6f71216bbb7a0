import { describe, expect, it } from "vitest";
import { inspectMessages } from "@/lib/safety/content-safety";
import { PROTOCOL_VERSION, type StreamEvent } from "@/lib/stream";
import { assistantText, buildMessages } from "./chat-history";
import { chatReducer, INITIAL_CHAT_STATE } from "./chat-state";
import type { AssistantTurn, ChatAction, ChatState } from "./chat-types";
import { describeStop } from "./payment-view";

const TX = `0x${"cd".repeat(32)}`;

function start(text = "What's the weather in Lisbon?"): ChatState {
  return chatReducer(INITIAL_CHAT_STATE, {
    type: "request-started",
    assistantId: "a1",
    user: { role: "user", id: "u1", content: text, excluded: false },
    body: { messages: [{ role: "user", content: text }] },
    payer: "agent",
    now: 1_000,
  });
}

function feed(state: ChatState, events: StreamEvent[], now = 2_000): ChatState {
  return events.reduce<ChatState>((current, event) => chatReducer(current, { type: "event", turnId: "a1", event, now }), state);
}

function turnOf(state: ChatState): AssistantTurn {
  const turn = state.turns.find((item) => item.role === "assistant");
  if (!turn || turn.role !== "assistant") throw new Error("no assistant turn");
  return turn;
}

describe("chatReducer", () => {
  it("appends text chunks into one part and keeps cards and errors in stream order", () => {
    const state = feed(start(), [
      { type: "text", text: "Let me " },
      { type: "text", text: "look." },
      { type: "payment", payment: { id: "p1", status: "quoted", amount: "0.01", service: "Weather" } },
      { type: "error", error: { code: "x", message: "slow" } },
      { type: "text", text: "Done." },
    ]);
    const turn = turnOf(state);
    expect(turn.phase).toBe("streaming");
    expect(turn.parts.map((part) => part.kind)).toEqual(["text", "payment", "error", "text"]);
    expect(assistantText(turn)).toBe("Let me look.\n\nDone.");
  });

  it("moves a payment's status only forward within one request and merges its fields", () => {
    const state = feed(start(), [
      { type: "payment", payment: { id: "p1", status: "quoted", amount: "0.01", service: "Weather" } },
      { type: "payment", payment: { id: "p1", status: "confirmed", txHash: TX } },
      { type: "payment", payment: { id: "p1", status: "settling" } },
    ]);
    const view = turnOf(state).payments.p1;
    expect(view?.status).toBe("confirmed");
    expect(view?.details).toMatchObject({ amount: "0.01", service: "Weather", txHash: TX });
  });

  it("keeps where a failed payment stopped", () => {
    const state = feed(start(), [
      { type: "payment", payment: { id: "p1", status: "quoted" } },
      { type: "payment", payment: { id: "p1", status: "failed", reason: "limit-exceeded" } },
    ]);
    expect(turnOf(state).payments.p1).toMatchObject({ status: "failed", progress: "quoted" });
  });

  it("ends the turn on finish, and the signed retry continues the same turn", () => {
    let state = feed(start(), [
      { type: "payment", payment: { id: "p1", status: "awaiting-approval", amount: "0.01" } },
      { type: "finish", finish: { finishReason: "stop", txHash: null, payments: [], protocolVersion: PROTOCOL_VERSION } },
    ]);
    expect(turnOf(state).phase).toBe("done");
    state = chatReducer(state, { type: "decision", turnId: "a1", paymentId: "p1", decision: "approved" });
    state = chatReducer(state, { type: "request-started", assistantId: "a1", user: undefined, body: turnOf(state).requestBody, payer: "agent", now: 3_000 });
    state = feed(state, [{ type: "payment", payment: { id: "p1", status: "signing" } }], 3_100);
    const turn = turnOf(state);
    expect(turn.request).toBe(2);
    expect(turn.payments.p1).toMatchObject({ status: "signing", decision: "approved", endedAt: undefined });
    expect(state.turns).toHaveLength(2);
  });

  it("leaves a refused first request out of the history", () => {
    const refused = chatReducer(start("hello"), {
      type: "problem",
      turnId: "a1",
      problem: { status: 429, title: "Too many", detail: "Wait.", retryAfterSeconds: 3, fieldErrors: [] },
      now: 2_000,
    } satisfies ChatAction);
    expect(refused.turns[0]).toMatchObject({ role: "user", excluded: true });
    expect(turnOf(refused).phase).toBe("failed");
    expect(buildMessages(refused.turns, "hello")).toEqual([{ role: "user", content: "hello" }]);
  });

  it("reports a stream that ended without its finish event", () => {
    const state = chatReducer(feed(start(), [{ type: "text", text: "par" }]), { type: "stream-ended", turnId: "a1", now: 3_000 });
    expect(turnOf(state).phase).toBe("failed");
    expect(turnOf(state).parts.at(-1)).toMatchObject({ kind: "notice", role: "problem" });
  });
});

describe("describeStop", () => {
  it("names a payment that was already confirmed, with its transaction", () => {
    const state = feed(start(), [
      { type: "payment", payment: { id: "p1", status: "quoted", amount: "0.01", service: "Weather" } },
      { type: "payment", payment: { id: "p1", status: "confirmed", txHash: TX } },
    ]);
    expect(describeStop(turnOf(state))).toBe("Stopped. The payment of 0.01 USDC to Weather was already confirmed: tx 0xcdcdcdcd…cdcdcdcd.");
  });

  it("warns about a payment still settling", () => {
    const state = feed(start(), [{ type: "payment", payment: { id: "p1", status: "settling", amount: "0.01", service: "Weather" } }]);
    expect(describeStop(turnOf(state))).toMatch(/^Stopped\. The payment of 0\.01 USDC to Weather was settling on-chain when you stopped; it may still settle/);
  });

  it("says nothing was paid when nothing was signed", () => {
    const state = feed(start(), [{ type: "payment", payment: { id: "p1", status: "quoted", amount: "5" } }]);
    expect(describeStop(turnOf(state))).toBe("Stopped before any payment was signed. Nothing was paid.");
  });
});

describe("buildMessages", () => {
  it("alternates user and assistant text, newest last, trimmed to the server's limits", () => {
    const state = feed(start("first"), [{ type: "text", text: "answer" }]);
    expect(buildMessages(state.turns, "second")).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "second" },
    ]);
    const long = "x".repeat(15_000);
    const many = Array.from({ length: 8 }, (_, index) => ({ role: "user" as const, id: `u${index}`, content: long, excluded: false }));
    const trimmed = buildMessages(many, "last");
    expect(trimmed.at(-1)).toEqual({ role: "user", content: "last" });
    expect(trimmed.reduce((sum, message) => sum + message.content.length, 0)).toBeLessThanOrEqual(64_000);
  });
});

describe("buildMessages and the server's secret check", () => {
  it("shortens the settlement hashes the agent quoted, so its own history is never refused", () => {
    const state = feed(start("first"), [{ type: "text", text: `Paid 0.01 USDC. Receipt ${TX}. Settlement: ${TX.toUpperCase().replace("0X", "0x")}` }]);
    const messages = buildMessages(state.turns, "second");
    const assistant = messages.find((message) => message.role === "assistant");
    expect(assistant?.content).toBe("Paid 0.01 USDC. Receipt 0xcdcdcdcd…cdcdcdcd. Settlement: 0xCDCDCDCD…CDCDCDCD");
    expect(inspectMessages(messages).safe).toBe(true);
  });

  it("leaves out assistant text that would still be refused, instead of failing every later message", () => {
    const state = feed(start("first"), [{ type: "text", text: `A bare value ${"cd".repeat(32)} and a split one ${"ab12".repeat(8)} ${"ab12".repeat(8)}` }]);
    const messages = buildMessages(state.turns, "second");
    expect(messages).toEqual([
      { role: "user", content: "first" },
      { role: "user", content: "second" },
    ]);
    expect(inspectMessages(messages).safe).toBe(true);
  });
});
