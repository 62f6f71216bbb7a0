/**
 * What the handler hands to the run: the deadline (counted from arrival) and the request key
 * (namespaced by caller). The run is observed through a pass-through spy on startChatRun, and
 * the clock is injected, so nothing here depends on real time.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as runChat from "../agent/run-chat";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { offlineNetwork, textModel } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { handleChatRequest } from "./handle-chat-request";

vi.mock("../agent/run-chat", async (importOriginal) => {
  const original = await importOriginal<typeof import("../agent/run-chat")>();
  return { ...original, startChatRun: vi.fn(original.startChatRun) };
});

function dependencies(env: Record<string, string>, now?: () => number) {
  return createAppDependencies(parseEnv({ RATE_LIMIT_REQUESTS: "1000", ...env }), {
    network: offlineNetwork,
    store: createMemoryStore(),
    baseModel: { model: textModel("Hello!"), modelId: "mock", isDemo: false },
    now,
  });
}

const startChatRun = vi.mocked(runChat.startChatRun);

beforeEach(() => {
  startChatRun.mockClear();
});

describe("the request key", () => {
  it("puts the caller in the key: two addresses, or a wallet, sending the same Idempotency-Key get different keys", async () => {
    const deps = dependencies({ TRUST_PROXY_HEADERS: "true" });
    const send = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) => {
      const response = await handleChatRequest(
        new Request("http://127.0.0.1/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": "message-1", ...headers },
          body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...extra }),
        }),
        () => deps,
      );
      expect(response.status).toBe(200);
      await response.text();
    };
    await send({ "x-forwarded-for": "198.51.100.1" });
    await send({ "x-forwarded-for": "198.51.100.2" });
    await send({ "x-forwarded-for": "198.51.100.1" }, { walletAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });
    const keys = startChatRun.mock.calls.map((call) => call[1].requestKey);
    expect(keys).toEqual([
      "key:15:ip:198.51.100.1:message-1",
      "key:15:ip:198.51.100.2:message-1",
      "key:49:wallet:0x70997970c51812dc3a010c7d01b50e0d17dc79c8:message-1",
    ]);
  });

  it("keeps IPv6 callers apart: 2001:db8::1 sending key 2:k and 2001:db8::1:2 sending key k get different keys; one address however written gets one", async () => {
    const deps = dependencies({ TRUST_PROXY_HEADERS: "true" });
    const send = async (address: string, idempotencyKey: string) => {
      const response = await handleChatRequest(
        new Request("http://127.0.0.1/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": idempotencyKey, "x-forwarded-for": address },
          body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
        }),
        () => deps,
      );
      expect(response.status).toBe(200);
      await response.text();
    };
    await send("2001:db8::1", "2:k");
    await send("2001:db8::1:2", "k");
    await send("2001:0DB8:0:0:0:0:0:0001", "2:k");
    await send("::ffff:198.51.100.1", "k");
    const keys = startChatRun.mock.calls.map((call) => call[1].requestKey);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).toBe("key:15:ip:198.51.100.1:k");
  });
});

describe("the chat deadline", () => {
  it("is the arrival time plus CHAT_DEADLINE_MS, however long the body took", async () => {
    let clock = 1_000_000;
    const deps = dependencies({ CHAT_DEADLINE_MS: "45000" }, () => clock);
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
    expect(startChatRun).toHaveBeenCalledTimes(1);
    const run = startChatRun.mock.results[0]?.value as runChat.ChatRun;
    expect(run.deadline).toBe(1_000_000 + 45_000);
  });
});
