/**
 * The request's deadline counts from its arrival: time spent receiving the body comes out of
 * CHAT_DEADLINE_MS, not on top of it. The run is observed through a pass-through spy on
 * startChatRun, and the clock is injected, so nothing here depends on real time.
 */
import { describe, expect, it, vi } from "vitest";
import * as runChat from "../agent/run-chat";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { offlineNetwork, textModel } from "../../tests/support/offline-fixtures";
import { createChatDependencies } from "./chat-dependencies";
import { handleChatRequest } from "./handle-chat-request";

vi.mock("../agent/run-chat", async (importOriginal) => {
  const original = await importOriginal<typeof import("../agent/run-chat")>();
  return { ...original, startChatRun: vi.fn(original.startChatRun) };
});

describe("the chat deadline", () => {
  it("is the arrival time plus CHAT_DEADLINE_MS, however long the body took", async () => {
    let clock = 1_000_000;
    const env = parseEnv({ RATE_LIMIT_REQUESTS: "1000", CHAT_DEADLINE_MS: "45000" });
    const deps = createChatDependencies(env, {
      network: offlineNetwork,
      store: createMemoryStore(),
      baseModel: { model: textModel("Hello!"), modelId: "mock", isDemo: false },
      now: () => clock,
    });
    // The body takes 4 s (of the injected clock) to arrive.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          clock += 4_000;
          controller.enqueue(new TextEncoder().encode(JSON.stringify({ messages: [{ role: "user", content: "hi" }] })));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const response = await handleChatRequest(
      new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit),
      () => deps,
    );
    expect(response.status).toBe(200);
    await response.text();
    const startChatRun = vi.mocked(runChat.startChatRun);
    expect(startChatRun).toHaveBeenCalledTimes(1);
    const run = startChatRun.mock.results[0]?.value as runChat.ChatRun;
    expect(run.deadline).toBe(1_000_000 + 45_000);
  });
});
