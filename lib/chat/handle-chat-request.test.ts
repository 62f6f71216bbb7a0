import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { createStore } from "../store/create-store";
import { decodeAll, findSequenceViolations, type StreamEvent } from "../stream";
import { createAppDependencies } from "../app/create-app-dependencies";
import { handleChatRequest } from "./handle-chat-request";
import { hello, problem, setup, signedApproval } from "../../tests/support/chat-handler";
import { textModel } from "../../tests/support/offline-fixtures";

describe("POST /api/chat before the stream", () => {
  it("streams a plain answer as SSE that ends with one finish event", async () => {
    const { send } = setup();
    const response = await send(hello);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = decodeAll(await response.text()).flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
    expect(events[0]).toEqual({ type: "text", text: "Hello!" });
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { finishReason: "stop", txHash: null, payments: [] } });
    expect(findSequenceViolations(events)).toEqual([]);
  });

  it("sends bare lines to clients that accept text/plain", async () => {
    const { send } = setup();
    const response = await send(hello, { accept: "text/plain" });
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith('0:"Hello!"\n')).toBe(true);
    expect(text).not.toContain("data:");
  });

  it.each([
    ["malformed JSON", "{", "bad_request:json", undefined],
    ["no messages", {}, "bad_request:body", "messages"],
    ["an unknown role", { messages: [{ role: "tool", content: "x" }] }, "bad_request:body", "messages.0.role"],
    ["non-string content", { messages: [{ role: "user", content: 5 }] }, "bad_request:body", "messages.0.content"],
    ["a bad checksum", { ...hello, walletAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79c8" }, "bad_request:body", "walletAddress"],
    ["the zero address", { ...hello, walletAddress: "0x0000000000000000000000000000000000000000" }, "bad_request:body", "walletAddress"],
    ["a negative limit", { ...hello, spendingLimits: { perPayment: "-1" } }, "bad_request:body", "spendingLimits.perPayment"],
    ["seven decimals", { ...hello, spendingLimits: { daily: "0.0000001" } }, "bad_request:body", "spendingLimits.daily"],
    ["an unknown limit", { ...hello, spendingLimits: { monthly: 5 } }, "bad_request:body", "spendingLimits"],
    ["an unknown field", { ...hello, admin: true }, "bad_request:body", "(body)"],
    ["a last message that is not the user's", { messages: [{ role: "assistant", content: "x" }] }, "bad_request:body", "messages"],
  ])("answers 400 for %s, naming the field", async (_name, body, code, path) => {
    const { send, model } = setup();
    const response = await send(body);
    expect(response.status).toBe(400);
    const body400 = await problem(response);
    expect(body400.code).toBe(code);
    if (path) expect(body400.errors?.map((error) => error.path)).toContain(path);
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("answers 400 for a body over the size limit and for a wrong content type", async () => {
    const { send } = setup();
    const big = await send({ messages: [{ role: "user", content: "x".repeat(300_000) }] });
    expect(big.status).toBe(400);
    expect((await problem(big)).code).toBe("bad_request:too_large");
    const wrongType = await send(JSON.stringify(hello), { "content-type": "text/plain" });
    expect(wrongType.status).toBe(400);
  });

  it("answers 403 to a pasted private key, without calling the model", async () => {
    const { send, model } = setup();
    const response = await send({ messages: [{ role: "user", content: `my key is ${"ab12".repeat(16)}` }] });
    expect(response.status).toBe(403);
    expect((await problem(response)).code).toBe("forbidden:unsafe_content");
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("answers 402 to a PAYMENT-SIGNATURE that is not a payment payload", async () => {
    const { send } = setup();
    const response = await send({ ...hello, walletAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }, { "PAYMENT-SIGNATURE": "bm90IGpzb24=" });
    expect(response.status).toBe(402);
    expect((await problem(response)).code).toBe("payment_required:invalid_signature");
  });

  it("answers 402, not 500, to a PAYMENT-SIGNATURE whose requirements nest thousands of levels deep", async () => {
    const { send } = setup();
    const payer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const decoded = JSON.parse(Buffer.from(await signedApproval(payer), "base64").toString("utf8")) as { accepted: { extra: Record<string, unknown> } };
    // As deep as the header's size allows: the nonce check hashes these requirements. (Spliced in
    // as text: JSON.stringify itself cannot write nesting this deep.)
    decoded.accepted.extra.deep = "DEEP";
    const text = JSON.stringify(decoded).replace('"DEEP"', `${"[".repeat(5_000)}1${"]".repeat(5_000)}`);
    const header = Buffer.from(text).toString("base64");
    const response = await send({ ...hello, walletAddress: payer.address }, { "PAYMENT-SIGNATURE": header });
    expect(response.status).toBe(402);
    expect((await problem(response)).code).toBe("payment_required:invalid_signature");
  });

  it("answers 429 past the rate limit, with Retry-After at most 50 s and RateLimit headers", async () => {
    const { send } = setup({ env: { RATE_LIMIT_REQUESTS: "2", RATE_LIMIT_WINDOW_SECONDS: "50" } });
    expect((await send(hello)).status).toBe(200);
    const second = await send(hello);
    expect(second.headers.get("ratelimit")).toMatch(/limit=2, remaining=0/);
    const third = await send(hello);
    expect(third.status).toBe(429);
    const retryAfter = Number(third.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(50);
    expect(third.headers.get("ratelimit-policy")).toBe("2;w=50");
    expect((await problem(third)).code).toBe("rate_limited");
  });

  it("answers 503 when the model provider refuses the first call", async () => {
    const failing = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:1234");
      },
    });
    const { send } = setup({ model: failing });
    const response = await send(hello);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("10");
    const body = await problem(response);
    expect(body.code).toBe("unavailable:model");
    expect(JSON.stringify(body)).not.toContain("ECONNREFUSED");
  });

  it("retries a retryable provider error once before deciding, and then answers 200", async () => {
    let calls = 0;
    const flaky = new MockLanguageModelV4({
      doStream: async (options) => {
        calls += 1;
        if (calls === 1) {
          throw new APICallError({ message: "overloaded", url: "http://provider/v1", requestBodyValues: {}, statusCode: 503, isRetryable: true });
        }
        return textModel("Recovered").doStream(options);
      },
    });
    const { send } = setup({ model: flaky });
    const response = await send(hello);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Recovered");
    expect(calls).toBe(2);
  });

  it("answers 503 when the shared store is unreachable (fail closed), naming no internals", async () => {
    const store = createStore({ redisUrl: "redis://127.0.0.1:1" });
    try {
      const { send, model } = setup({ store });
      const response = await send(hello);
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = await problem(response);
      expect(body.code).toBe("unavailable:store");
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|redis:/);
      expect(model.doStreamCalls).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it("answers 500 with an opaque id, and nothing internal, when something unexpected breaks", async () => {
    const broken = createMemoryStore();
    broken.rateLimiter.hit = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'secret')");
    };
    const { send } = setup({ store: broken });
    const response = await send(hello);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toMatch(/TypeError|secret/);
    expect(JSON.parse(text).instance).toMatch(/^urn:uuid:/);
  });

  it("answers 503 when the local payment network is not running", async () => {
    const env = parseEnv({ DEVNET_FILE: "/nonexistent/devnet.json" });
    const response = await handleChatRequest(
      new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(hello) }),
      () => createAppDependencies(env),
    );
    expect(response.status).toBe(503);
    const body = await problem(response);
    expect(body.code).toBe("unavailable:not_configured");
    expect(JSON.stringify(body)).toMatch(/npm run dev/);
    expect(JSON.stringify(body)).not.toContain("/nonexistent");
  });
});
