/**
 * A payment refused at verification, on the local world: the service answers the signed request
 * with a 402 naming the facilitator's verification error. The agent wallet then waits for the
 * chain (the service still holds a usable signature), and the stream says why it waits and
 * until when: the `pending` event names the error in words and carries the authorization's
 * expiry (`expiresAt`). The final outcome is "expired unused, nothing spent", with the budget
 * given back and no USDC moved.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { getAddress } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findSequenceViolations, type PaymentEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { exactUsdcOption, hostileWorldOf, startHostileService, type HostileService } from "../support/hostile-service";

const HOSTILE_PRICE = 10_000n;
const HOSTILE_PAYEE = getAddress(`0x${"be".repeat(20)}`);
const AUTHORIZATION_SECONDS = 10;

/** A model that calls the URL the user named, then says it is done. */
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let calls = 0;
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const answered = prompt.some((message) => message.role === "tool");
    const userText = prompt
      .flatMap((message) => (message.role === "user" ? message.content.map((part) => (part.type === "text" ? part.text : "")) : []))
      .join(" ");
    const url = userText.match(/https?:\/\/\S+/)?.[0];
    const parts: LanguageModelV4StreamPart[] =
      answered || !url
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Done." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]
        : [
            { type: "tool-call", toolCallId: `refused-${(calls += 1)}`, toolName: "call_paid_service", input: JSON.stringify({ url, method: "GET" }) },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
          ];
    return { stream: convertArrayToReadableStream(parts) };
  },
});

let harness: ChatHarness;
let hostile: HostileService;
let agent: `0x${string}`;

beforeAll(async () => {
  hostile = await startHostileService({
    "/refuses": {
      accepts: (world) => [exactUsdcOption(world, { amount: HOSTILE_PRICE.toString(), payTo: HOSTILE_PAYEE })],
      afterPayment: { answer: "402", settle: "never", refusal: "invalid_exact_evm_signature" },
    },
  });
  harness = await startChatHarness({
    baseModel: { model, modelId: "scripted-refused", isDemo: false },
    env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${hostile.port}`, CHAT_DEADLINE_MS: "20000", AGENT_AUTHORIZATION_TTL_SECONDS: String(AUTHORIZATION_SECONDS) },
  });
  hostile.configure(hostileWorldOf(harness.devnet, harness.devnet));
  agent = harness.devnet.accounts.agent.address as `0x${string}`;
}, 60_000);

afterEach(async () => {
  await harness.devnet.faults.reset();
});

afterAll(async () => {
  await hostile?.close();
  await harness?.stop();
});

/** Chats, noting the agent's reservation and the time at each `pending` event. */
async function chatWatchingPending(content: string) {
  const atPending: { reserved: bigint; atSeconds: number }[] = [];
  const result = await harness.chat(userMessage(content), {
    onEvent: async (event) => {
      if (event.type === "payment" && event.payment.status === "pending") {
        atPending.push({ reserved: (await harness.deps.store.ledger.spentToday(agent)).reserved, atSeconds: Date.now() / 1000 });
      }
    },
  });
  expect(findSequenceViolations(result.events)).toEqual([]);
  const pending = result.payments.filter((payment) => payment.status === "pending");
  return { result, pending, atPending };
}

function expectExpiredUnused(payments: PaymentEvent[]): void {
  const last = payments.at(-1);
  expect(last).toMatchObject({ status: "failed", reason: "payment-failed", message: expect.stringMatching(/expired unused, so nothing was spent\.$/) });
}

describe("a payment refused at verification", () => {
  it("names the official error in words and the authorization's expiry while it waits; then expired unused, nothing spent", async () => {
    const before = await harness.usdcBalance(agent);
    const { result, pending, atPending } = await chatWatchingPending(`Get the data at ${hostile.url("/refuses")}`);
    const authorization = hostile.authorizations.at(-1);
    expect(authorization).toBeDefined();

    expect(pending).toHaveLength(1);
    const waiting = pending[0]!;
    expect(waiting.expiresAt).toBe(authorization!.validBefore);
    expect(waiting.message).toMatch(/refused the payment at verification: it says the signature is invalid \(invalid_exact_evm_signature\)\./);
    expect(waiting.message).toMatch(/stays usable until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and nothing can be spent with it after that/);
    expect(waiting.message).not.toMatch(/nothing was spent/);
    // Said before the expiry, with the budget still held.
    expect(atPending[0]!.atSeconds).toBeLessThan(authorization!.validBefore);
    expect(atPending[0]!.reserved).toBe(HOSTILE_PRICE);

    expectExpiredUnused(result.payments);
    expect(result.payments.at(-1)?.message).toMatch(/signature is invalid/);
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(hostile.settlements).toEqual([]);
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });

  it("shows a code it does not know only as the service's words, when the local facilitator refuses", async () => {
    await harness.devnet.faults.set({ verifyFails: true });
    const weather = harness.devnet.services.find((service) => service.name === "weather");
    expect(weather).toBeDefined();
    const before = await harness.usdcBalance(agent);
    const startedAt = Date.now() / 1000;
    const { result, pending, atPending } = await chatWatchingPending(`Get the data at ${weather!.url}?city=Lisbon`);

    expect(pending).toHaveLength(1);
    const waiting = pending[0]!;
    expect(waiting.message).toMatch(/refused the payment at verification \(the service's reason, untrusted: "devnet_fault_verify_failed"\)\./);
    expect(waiting.expiresAt).toBeGreaterThan(startedAt);
    expect(waiting.expiresAt).toBeLessThanOrEqual(Math.ceil(startedAt) + AUTHORIZATION_SECONDS + 1);
    expect(atPending[0]!.atSeconds).toBeLessThan(waiting.expiresAt!);
    expect(atPending[0]!.reserved).toBeGreaterThan(0n);

    expectExpiredUnused(result.payments);
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });
});
