import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { decodeAll, type StreamEvent } from "../stream";
import { createAppDependencies } from "../app/create-app-dependencies";
import { handleChatRequest } from "./handle-chat-request";
import { hello, QUOTE_SECRET } from "../../tests/support/chat-handler";
import { collectGarbage } from "../../tests/support/collect-garbage";
import { offlineNetwork } from "../../tests/support/offline-fixtures";

/** A model that says one word and then waits, the way a long tool call does, until it is aborted. */
function waitingModel(aborted: { signal?: AbortSignal }) {
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      aborted.signal = abortSignal;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t" });
            controller.enqueue({ type: "text-delta", id: "t", delta: "Working on it." });
            abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
          },
        }),
      };
    },
  });
}

describe("a caller that goes away mid-stream", () => {
  it("stops the run through the request's signal even after the Request object was garbage collected", async () => {
    const seen: { signal?: AbortSignal } = {};
    const deps = createAppDependencies(parseEnv({ RATE_LIMIT_REQUESTS: "1000", QUOTE_SECRET }), {
      network: offlineNetwork,
      store: createMemoryStore(),
      baseModel: { model: waitingModel(seen), modelId: "mock", isDemo: false },
    });
    const caller = new AbortController();
    // The Request is not kept here: a server hands it over and may drop it. undici's Request
    // follows the caller's signal only through a weak reference to its own controller.
    const response = await handleChatRequest(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(hello),
        signal: caller.signal,
      }),
      () => deps,
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    expect(text).toContain("Working on it.");

    await collectGarbage();
    caller.abort();

    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    expect(seen.signal?.aborted).toBe(true);
    const events = decodeAll(text).flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
    expect(events.at(-1)).toMatchObject({ type: "finish" });
  }, 20_000);
});
