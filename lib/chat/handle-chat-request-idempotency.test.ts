import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { hello, problem, setup } from "../../tests/support/chat-handler";
import { mockUsage, textModel } from "../../tests/support/offline-fixtures";

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
    expect(JSON.stringify(body)).toMatch(/Wait for it to finish/);
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
