import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { getAddress } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it, vi } from "vitest";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { createStore } from "../store/create-store";
import type { Store } from "../store/store-types";
import { decodeAll, findSequenceViolations, type StreamEvent } from "../stream";
import { createChatDependencies } from "./chat-dependencies";
import { handleChatRequest } from "./handle-chat-request";
import { mockUsage, offlineNetwork, textModel } from "../../tests/support/offline-fixtures";
import { deriveAuthorizationNonce } from "../x402/authorization-nonce";
import { selectPayableRequirement } from "../x402/payment-requirements";
import { buildTransferTypedData, toViemTypedData } from "../x402/transfer-authorization";

const QUOTE_SECRET = "handler-test-quote-secret-0123456789abcdef0123456789";

function setup(options: { env?: Record<string, string>; model?: MockLanguageModelV4; store?: Store; now?: () => number } = {}) {
  const env = parseEnv({ RATE_LIMIT_REQUESTS: "1000", QUOTE_SECRET, ...options.env });
  const model = options.model ?? textModel("Hello!");
  const deps = createChatDependencies(env, {
    network: offlineNetwork,
    store: options.store ?? createMemoryStore(),
    baseModel: { model, modelId: "mock", isDemo: false },
    now: options.now,
  });
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    handleChatRequest(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: body instanceof ReadableStream ? body : typeof body === "string" ? body : JSON.stringify(body),
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit),
      () => deps,
    );
  return { send, model, deps };
}

/** A wallet's PAYMENT-SIGNATURE for a quote the handler will accept (its service is never reached). */
async function signedApproval(payer: PrivateKeyAccount): Promise<string> {
  const requirements = {
    scheme: "exact",
    network: offlineNetwork.caip2,
    amount: "10000",
    asset: offlineNetwork.usdc,
    payTo: getAddress(`0x${"ab".repeat(20)}`),
    maxTimeoutSeconds: 120,
    extra: { name: "USD Coin", version: "2" },
  };
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [requirements] }, offlineNetwork);
  if (!selection.ok) throw new Error(selection.reason);
  const nowSeconds = BigInt(Math.floor(Date.now() / 1000));
  const validAfter = nowSeconds - 60n;
  const validBefore = nowSeconds + 600n;
  // Loopback port 9 is not allowlisted: the purchase is refused before connecting.
  const url = "http://127.0.0.1:9/paid";
  const nonce = deriveAuthorizationNonce(QUOTE_SECRET, {
    payer: payer.address,
    payTo: selection.option.payTo,
    amount: selection.option.amount,
    asset: selection.option.asset,
    network: selection.option.network,
    chainId: offlineNetwork.chainId,
    resource: url,
    method: "GET",
    validAfter,
    validBefore,
    requirements: selection.option.requirements,
    intent: "",
  });
  const typedData = buildTransferTypedData(selection.option, payer.address, offlineNetwork.chainId, { validAfter, validBefore, nonce });
  const signature = await payer.signTypedData(toViemTypedData(typedData));
  const payload = { x402Version: 2, resource: { url, method: "GET" }, accepted: requirements, payload: { signature, authorization: typedData.message } };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
}

/** A body that sends one byte every `intervalMs`, `chunks` times, then a valid request. */
function tricklingBody(chunks: number, intervalMs: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
        sent += 1;
        if (sent <= chunks) {
          controller.enqueue(encoder.encode(" "));
        } else {
          controller.enqueue(encoder.encode(JSON.stringify(hello)));
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

const hello = { messages: [{ role: "user", content: "hi" }] };

async function problem(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  return (await response.json()) as { status: number; code: string; errors?: { path: string; message: string }[] };
}

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
      () => createChatDependencies(env),
    );
    expect(response.status).toBe(503);
    const body = await problem(response);
    expect(body.code).toBe("unavailable:not_configured");
    expect(JSON.stringify(body)).toMatch(/npm run dev/);
    expect(JSON.stringify(body)).not.toContain("/nonexistent");
  });
});

describe("POST /api/chat: rate limits come first and count only what is proven", () => {
  const victim = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const proxied = { TRUST_PROXY_HEADERS: "true", RATE_LIMIT_REQUESTS: "2", RATE_LIMIT_WINDOW_SECONDS: "50" };

  it("does not count a wallet's bucket for requests that merely name the wallet", async () => {
    const { send } = setup({ env: proxied });
    // Three callers at three addresses name the same wallet without a signature: none of them
    // may use up that wallet's bucket (limit 2).
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const response = await send({ ...hello, walletAddress: victim.address }, { "x-forwarded-for": address });
      expect(response.status).toBe(200);
      await response.text();
    }
  });

  it("counts a wallet's bucket once its PAYMENT-SIGNATURE is verified", async () => {
    const { send } = setup({ env: proxied });
    const header = await signedApproval(victim);
    const statuses: number[] = [];
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const response = await send({ ...hello, walletAddress: victim.address }, { "x-forwarded-for": address, "PAYMENT-SIGNATURE": header });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("refuses a client over its limit before reading, parsing or scanning the body", async () => {
    const { send } = setup({ env: { RATE_LIMIT_REQUESTS: "1" } });
    expect((await send(hello)).status).toBe(200);
    // Malformed JSON and a pasted key would be 400 and 403 if the body were looked at.
    expect((await send("{")).status).toBe(429);
    expect((await send({ messages: [{ role: "user", content: `my key is ${"ab12".repeat(16)}` }] })).status).toBe(429);
    let read = false;
    const untouched = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          read = true;
          controller.enqueue(new TextEncoder().encode(JSON.stringify(hello)));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const response = await send(untouched);
    expect(response.status).toBe(429);
    expect(read).toBe(false);
  });

  it("answers 408 to a body that trickles in for longer than BODY_READ_TIMEOUT_MS, without calling the model", async () => {
    const { send, model } = setup({ env: { BODY_READ_TIMEOUT_MS: "200" } });
    // Thirty 20 ms pauses: at least 600 ms in all, three times the limit.
    const response = await send(tricklingBody(30, 20));
    expect(response.status).toBe(408);
    expect((await problem(response)).code).toBe("request_timeout");
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("still reads a body that arrives within BODY_READ_TIMEOUT_MS in several chunks", async () => {
    const { send } = setup({ env: { BODY_READ_TIMEOUT_MS: "10000" } });
    const response = await send(tricklingBody(3, 1));
    expect(response.status).toBe(200);
    await response.text();
  });
});

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
