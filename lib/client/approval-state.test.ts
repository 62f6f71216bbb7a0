import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type AgentConfirmation, type ApprovalRequest, type StreamEvent } from "@/lib/stream";
import { askStateOf, hasOpenAsk, pendingApprovalState, staleAskParts } from "./approval-state";
import { assistantText, buildMessages } from "./chat-history";
import { chatReducer, INITIAL_CHAT_STATE } from "./chat-state";
import type { AssistantTurn, ChatState } from "./chat-types";
import { describeSignatureExpiry } from "./expiry-countdown";

const NOW = 1_700_000_000_000;
const EXPIRES_AT = NOW / 1000 + 300;
const TX = `0x${"cd".repeat(32)}` as const;
const ADDRESS = `0x${"12".repeat(20)}`;
const ASK = "\n\nApprove the payment of 0.01 USDC in your wallet to continue; it expires in a few minutes.";

const approval: ApprovalRequest = {
  method: "GET",
  resource: "http://127.0.0.1:4021/weather?city=Lisbon",
  amount: "0.01",
  asset: ADDRESS,
  network: "eip155:31337",
  payTo: ADDRESS,
  expiresAt: EXPIRES_AT,
  x402Version: 2,
  scheme: "exact",
  requirements: {},
  typedData: {
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: ADDRESS },
    types: { TransferWithAuthorization: [] },
    primaryType: "TransferWithAuthorization",
    message: { from: ADDRESS, to: ADDRESS, value: "10000", validAfter: "0", validBefore: String(EXPIRES_AT), nonce: `0x${"5a".repeat(32)}` },
  },
};

const finish = (extra: object = {}): StreamEvent => ({
  type: "finish",
  finish: { finishReason: "stop", txHash: null, payments: [], protocolVersion: PROTOCOL_VERSION, ...extra },
});

function start(): ChatState {
  return chatReducer(INITIAL_CHAT_STATE, {
    type: "request-started",
    assistantId: "a1",
    user: { role: "user", id: "u1", content: "What's the weather in Lisbon?", excluded: false },
    body: { messages: [{ role: "user", content: "What's the weather in Lisbon?" }] },
    payer: ADDRESS,
    now: NOW,
  });
}

function feed(state: ChatState, events: StreamEvent[]): ChatState {
  return events.reduce<ChatState>((current, event) => chatReducer(current, { type: "event", turnId: "a1", event, now: NOW }), state);
}

function turnOf(state: ChatState): AssistantTurn {
  const turn = state.turns.find((item) => item.role === "assistant");
  if (!turn || turn.role !== "assistant") throw new Error("no assistant turn");
  return turn;
}

/** Request 1 of "my wallet": the agent's words, the quote awaiting approval, the server's ask. */
function quoted(): ChatState {
  return feed(start(), [
    { type: "text", text: "Let me check the weather service." },
    { type: "payment", payment: { id: "p1", status: "quoted", amount: "0.01", service: "Weather" } },
    { type: "payment", payment: { id: "p1", status: "awaiting-approval", approval, message: "Approve 0.01 USDC to Weather in your wallet." } },
    { type: "text", text: ASK.slice(0, 20) },
    { type: "text", text: ASK.slice(20) },
    finish({ pendingApproval: { id: "p1", approval } }),
  ]);
}

/** The signed retry: request 2 of the same turn pays and answers. */
function approvedAndAnswered(state: ChatState): ChatState {
  let next = chatReducer(state, { type: "decision", turnId: "a1", paymentId: "p1", decision: "approved" });
  next = chatReducer(next, { type: "request-started", assistantId: "a1", user: undefined, body: turnOf(next).requestBody, payer: ADDRESS, now: NOW + 5_000 });
  return feed(next, [
    { type: "payment", payment: { id: "p1", status: "verifying" } },
    { type: "payment", payment: { id: "p1", status: "confirmed", txHash: TX } },
    { type: "payment", payment: { id: "p1", status: "delivered" } },
    { type: "text", text: "It is 21 °C in Lisbon." },
    finish({ finishReason: "payment-complete", txHash: TX }),
  ]);
}

describe("the words that asked for an approval", () => {
  it("are kept apart from the agent's own words while the approval is open", () => {
    const turn = turnOf(quoted());
    const texts = turn.parts.filter((part) => part.kind === "text");
    expect(texts).toEqual([
      { kind: "text", key: "text-0", text: "Let me check the weather service.", request: 1 },
      { kind: "text", key: "text-2", text: ASK, request: 1, asks: "p1" },
    ]);
    expect(askStateOf(turn.payments.p1!, NOW)).toBe("open");
    expect(hasOpenAsk(turn, NOW)).toBe(true);
    expect(staleAskParts(turn, NOW).size).toBe(0);
    expect(assistantText(turn, NOW)).toContain("to continue");
  });

  it("go once the approval led to a payment: neither the page nor the history still asks", () => {
    const state = approvedAndAnswered(quoted());
    const turn = turnOf(state);
    expect(askStateOf(turn.payments.p1!, NOW)).toBe("approved");
    expect(hasOpenAsk(turn, NOW)).toBe(false);
    expect([...staleAskParts(turn, NOW)]).toEqual(["text-2"]);
    // The answer of request 2 is its own part, not an ask.
    expect(turn.parts.at(-1)).toEqual({ kind: "text", key: "text-3", text: "It is 21 °C in Lisbon.", request: 2 });
    expect(assistantText(turn, NOW)).toBe("Let me check the weather service.\n\nIt is 21 °C in Lisbon.");
    // Nor does the card: its ask went with the first step after it, which said nothing itself.
    expect(turn.payments.p1?.details.message).toBeUndefined();
    const history = buildMessages(state.turns, "And in Porto?");
    expect(JSON.stringify(history)).not.toMatch(/Approve|to continue/);
  });

  it("the outcome of the request that waited goes with the retry, and says how the approval stands", () => {
    const waiting = quoted();
    expect(pendingApprovalState(turnOf(waiting), NOW)).toBe("open");
    expect(pendingApprovalState(turnOf(waiting), EXPIRES_AT * 1000)).toBe("expired");
    const rejected = chatReducer(waiting, { type: "decision", turnId: "a1", paymentId: "p1", decision: "rejected" });
    expect(pendingApprovalState(turnOf(rejected), NOW)).toBe("rejected");
    // The signed retry starts: request 1's "waiting for your approval" is no longer the turn's outcome.
    const approved = chatReducer(waiting, { type: "decision", turnId: "a1", paymentId: "p1", decision: "approved" });
    const retrying = chatReducer(approved, {
      type: "request-started",
      assistantId: "a1",
      user: undefined,
      body: turnOf(approved).requestBody,
      payer: ADDRESS,
      now: NOW,
    });
    expect(turnOf(retrying).finish).toBeUndefined();
    expect(pendingApprovalState(turnOf(retrying), NOW)).toBeUndefined();
    expect(turnOf(approvedAndAnswered(waiting)).finish).toMatchObject({ finishReason: "payment-complete" });
  });

  it("go once the approval was rejected", () => {
    const state = chatReducer(quoted(), { type: "decision", turnId: "a1", paymentId: "p1", decision: "rejected" });
    const turn = turnOf(state);
    expect(askStateOf(turn.payments.p1!, NOW)).toBe("rejected");
    expect([...staleAskParts(turn, NOW)]).toEqual(["text-2"]);
    expect(assistantText(turn, NOW)).toBe("Let me check the weather service.");
  });

  it("go once the quote has expired, and not a second before", () => {
    const turn = turnOf(quoted());
    const expiry = EXPIRES_AT * 1000;
    expect(askStateOf(turn.payments.p1!, expiry - 1)).toBe("open");
    expect(staleAskParts(turn, expiry - 1).size).toBe(0);
    expect(askStateOf(turn.payments.p1!, expiry)).toBe("expired");
    expect([...staleAskParts(turn, expiry)]).toEqual(["text-2"]);
    expect(hasOpenAsk(turn, expiry)).toBe(false);
  });

  it("covers the go-ahead for the agent wallet the same way", () => {
    const confirmation: AgentConfirmation = {
      token: "t.s",
      method: "POST",
      resource: "https://api.example.com/v1/translate",
      maxAmount: "1",
      expiresAt: EXPIRES_AT,
    };
    let state = feed(start(), [
      { type: "payment", payment: { id: "ask_1", status: "awaiting-approval", confirmation } },
      { type: "text", text: "That address came from a service's answer; approve it to continue." },
      finish(),
    ]);
    expect(staleAskParts(turnOf(state), NOW).size).toBe(0);
    state = chatReducer(state, { type: "decision", turnId: "a1", paymentId: "ask_1", decision: "approved" });
    expect([...staleAskParts(turnOf(state), NOW)]).toEqual(["text-1"]);
  });

  it("leaves text alone that no question is waiting on", () => {
    // A payment that never asked (the agent wallet paying) does not make its text an ask.
    const state = feed(start(), [
      { type: "payment", payment: { id: "p1", status: "verifying", amount: "0.01" } },
      { type: "text", text: "Paying." },
      { type: "payment", payment: { id: "p1", status: "failed", reason: "payment-failed" } },
      finish(),
    ]);
    const turn = turnOf(state);
    expect(turn.parts.find((part) => part.kind === "text")).not.toHaveProperty("asks");
    expect(askStateOf(turn.payments.p1!, NOW)).toBeUndefined();
    expect(staleAskParts(turn, NOW + 1e9).size).toBe(0);
  });
});

describe("describeSignatureExpiry", () => {
  it("counts down in seconds, then minutes, then says the signature is void", () => {
    expect(describeSignatureExpiry(NOW / 1000 + 14, NOW)).toBe("Signature expires in 14 s");
    expect(describeSignatureExpiry(NOW / 1000 + 14, NOW + 200)).toBe("Signature expires in 14 s");
    expect(describeSignatureExpiry(NOW / 1000 + 305, NOW)).toBe("Signature expires in 5 min 05 s");
    expect(describeSignatureExpiry(NOW / 1000, NOW)).toBe("Signature expired: nothing can be spent with it any more");
  });
});
