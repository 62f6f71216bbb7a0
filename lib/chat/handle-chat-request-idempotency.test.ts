import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { hello, problem, setup } from "../../tests/support/chat-handler";
import { mockUsage, textModel } from "../../tests/support/offline-fixtures";
import { createMemoryStore } from "../store/create-memory-store";

/**
 * A model whose first answer stays open until `finishFirst()` (or until the run aborts it), so
 * a first request is still running while a second one arrives; later answers finish at once.
 */
function heldModel() {
  let finishFirst!: () => void;
  const gate = new Promise<void>((resolve) => {
    finishFirst = resolve;
  });
  let calls = 0;
  const model = new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      calls += 1;
      const held = calls === 1;
      const aborted = new Promise<void>((resolve) => abortSignal?.addEventListener("abort", () => resolve(), { once: true }));
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            controller.enqueue({ type: "text-start", id: "t" });
            controller.enqueue({ type: "text-delta", id: "t", delta: held ? "First." : "Again." });
            if (held) await Promise.race([gate, aborted]);
            try {
              controller.enqueue({ type: "text-end", id: "t" });
              controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: mockUsage });
              controller.close();
            } catch {
              // The run stopped reading after an abort.
            }
          },
        }),
      };
    },
  });
  return { model, finishFirst };
}

describe("POST /api/chat: one Idempotency-Key runs once at a time", () => {
  it("answers 409 to a concurrent duplicate, and lets a retry through after the first has finished", async () => {
    const { model, finishFirst } = heldModel();
    const { send } = setup({ model });
    const first = await send(hello, { "Idempotency-Key": "message-1" });
    expect(first.status).toBe(200);
    const duplicate = await send(hello, { "Idempotency-Key": "message-1" });
    expect(duplicate.status).toBe(409);
    const body = await problem(duplicate);
    expect(body.code).toBe("conflict:in_progress");
    expect(JSON.stringify(body)).toMatch(/Wait the seconds in Retry-After/);
    // When to come back: the claim lapses a little after the first request's deadline (45 s).
    const retryAfter = Number(duplicate.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(45);
    expect(retryAfter).toBeLessThanOrEqual(50);
    // Another message is not held up.
    const other = await send(hello, { "Idempotency-Key": "message-2" });
    expect(other.status).toBe(200);
    await other.text();
    finishFirst();
    expect(await first.text()).toContain("First.");
    const retry = await send(hello, { "Idempotency-Key": "message-1" });
    expect(retry.status).toBe(200);
    expect(await retry.text()).toContain("Again.");
  });

  it("does not hold up another IPv6 caller whose address and key spell the same text (2001:db8::1 + 2:k, 2001:db8::1:2 + k)", async () => {
    const { model, finishFirst } = heldModel();
    const { send } = setup({ model, env: { TRUST_PROXY_HEADERS: "true" } });
    const first = await send(hello, { "Idempotency-Key": "2:k", "X-Forwarded-For": "2001:db8::1" });
    expect(first.status).toBe(200);
    // Another caller: its own claim, not the first caller's 409 (nor, later, its recorded outcome).
    const other = await send(hello, { "Idempotency-Key": "k", "X-Forwarded-For": "2001:db8::1:2" });
    expect(other.status).toBe(200);
    expect(await other.text()).toContain("Again.");
    // The first caller's own retry, however its proxy writes the address, is still held.
    const retry = await send(hello, { "Idempotency-Key": "2:k", "X-Forwarded-For": "2001:0db8:0:0:0:0:0:0001" });
    expect(retry.status).toBe(409);
    await retry.text();
    finishFirst();
    await first.text();
  });

  it("tells a retry when a claim whose holder died lapses: after that holder's deadline, not a fixed minute", async () => {
    const store = createMemoryStore();
    const claims = vi.spyOn(store.inFlight, "claim");
    const { model, finishFirst } = heldModel();
    const { send } = setup({ model, store, env: { CHAT_DEADLINE_MS: "10000" } });
    const first = await send(hello, { "Idempotency-Key": "orphan" });
    expect(first.status).toBe(200);
    const [key, ttlSeconds, holder] = claims.mock.calls[0] ?? [];
    // The 10 s deadline plus 5 s of grace, never the 60 s of before; and the claim names its holder.
    expect(ttlSeconds).toBe(15);
    expect(holder).toMatch(/^instance-[0-9a-f]{8}\//);
    const rival = await store.inFlight.claim(String(key), 1, "rival");
    expect(rival).toMatchObject({ claimed: false, record: null, holder });
    const duplicate = await send(hello, { "Idempotency-Key": "orphan" });
    expect(duplicate.status).toBe(409);
    const retryAfter = Number(duplicate.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(14);
    expect(retryAfter).toBeLessThanOrEqual(15);
    finishFirst();
    await first.text();
  });

  it("releases the key when the client disconnects", async () => {
    const { model } = heldModel();
    const { send } = setup({ model });
    const first = await send(hello, { "Idempotency-Key": "message-1" });
    expect(first.status).toBe(200);
    await first.body?.cancel();
    await vi.waitFor(async () => {
      const retry = await send(hello, { "Idempotency-Key": "message-1" });
      expect(retry.status).toBe(200);
      await retry.text();
    });
  });

  it("releases the key when the route refuses after claiming it (model unavailable)", async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        calls += 1;
        if (calls === 1) throw new Error("connect ECONNREFUSED 127.0.0.1:1234");
        return textModel("Recovered").doStream(options);
      },
    });
    const { send } = setup({ model });
    const first = await send(hello, { "Idempotency-Key": "message-1" });
    expect(first.status).toBe(503);
    const retry = await send(hello, { "Idempotency-Key": "message-1" });
    expect(retry.status).toBe(200);
    expect(await retry.text()).toContain("Recovered");
  });

  it("keeps callers apart: the same key from another client address is not a duplicate", async () => {
    const { model, finishFirst } = heldModel();
    const { send } = setup({ model, env: { TRUST_PROXY_HEADERS: "true" } });
    const first = await send(hello, { "Idempotency-Key": "message-1", "x-forwarded-for": "198.51.100.1" });
    expect(first.status).toBe(200);
    const stranger = await send(hello, { "Idempotency-Key": "message-1", "x-forwarded-for": "198.51.100.2" });
    expect(stranger.status).toBe(200);
    await stranger.text();
    finishFirst();
    await first.text();
  });
});
