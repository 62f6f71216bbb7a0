/**
 * Safe retries with x402's payment-identifier extension: every payment of one intent carries one
 * identifier, derived from the at-most-once key, so a client retry after a dropped stream sends
 * the same identifier again while the chain still sees one settlement; another intent gets
 * another identifier. The local world's v2 services declare the extension and deduplicate on it.
 */
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paymentIdentifierActivity } from "../../devnet/services/payment-identifier-cache";
import { collectGarbage } from "../support/collect-garbage";
import { startChatHarness, userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";

const SERVICE = "slow-analysis";
const PRICE = parseUnits("0.04", 6);
const WEATHER = parseUnits("0.01", 6);

describe("a payment identifier per intent", () => {
  let harness: ChatHarness;
  let agent: `0x${string}`;
  const activity = () => paymentIdentifierActivity(harness.devnet.faults, SERVICE);

  beforeAll(async () => {
    // The slow service answers after 3 s, so the caller can leave after the service has the
    // payment and before it settles; a 10 s authorization keeps the wait for its proof short.
    harness = await startChatHarness({ devnet: { slowDelayMs: 3_000 }, env: { AGENT_AUTHORIZATION_TTL_SECONDS: "10" } });
    agent = harness.devnet.accounts.agent.address as `0x${string}`;
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("a dropped stream and a retry with the same Idempotency-Key settle once, sending one identifier twice", async () => {
    const before = await harness.usdcBalance(agent);
    const body = userMessage("Run a sentiment analysis of ethereum");
    const headers = { "Idempotency-Key": "pid-drop-1" };

    // 1. The caller goes away once the service holds the payment (it saw the identifier).
    const controller = new AbortController();
    const first = await harness.chat(body, {
      headers,
      signal: controller.signal,
      onEvent: async (event) => {
        if (controller.signal.aborted || event.type !== "payment" || event.payment.status !== "verifying") return;
        await waitUntil(() => activity().seen.length === 1, 15_000);
        // A loaded process may collect at any moment, including the Request the caller handed over.
        await collectGarbage();
        controller.abort();
      },
    });
    // The request stopped waiting for the service; the chain then proved the authorization unused.
    expect(first.finish?.finishReason).toBe("payment-failed");
    expect(first.payments.at(-1)?.message).toMatch(/expired unused, so nothing was spent/);
    const [sentFirst] = activity().seen;
    expect(sentFirst).toMatch(/^pay_[0-9a-f]{32}$/);

    // 2. The client retries with the same key: the same identifier goes out, and this time the
    // service settles and answers.
    const retry = await retryUntilAccepted(() => harness.chat(body, { headers }));
    expect(retry.finish?.finishReason).toBe("payment-complete");
    expect(activity()).toEqual({ seen: [sentFirst, sentFirst], settlements: 1 });
    // One settlement on chain: the first authorization expired unused.
    expect(await harness.usdcBalance(agent)).toBe(before - PRICE);

    // 3. The same request once more is the recorded outcome: nothing is sent, nothing is paid.
    const again = await harness.chat(body, { headers });
    expect(again.finish).toMatchObject({ finishReason: "payment-complete", txHash: retry.finish?.txHash });
    expect(activity().seen).toHaveLength(2);
    expect(await harness.usdcBalance(agent)).toBe(before - PRICE);
  }, 90_000);

  it("another intent (another message) gets another identifier", async () => {
    const seenBefore = activity().seen;
    const result = await harness.chat(userMessage("Run a sentiment analysis of bitcoin"), { headers: { "Idempotency-Key": "pid-other-1" } });
    expect(result.finish?.finishReason).toBe("payment-complete");
    const { seen, settlements } = activity();
    expect(seen).toHaveLength(seenBefore.length + 1);
    const sent = seen.at(-1);
    expect(sent).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(seenBefore).not.toContain(sent);
    expect(settlements).toBe(2);
  }, 60_000);

  it("a demo service answers the same signed payment with the same identifier from its first result, settling once", async () => {
    const user = harness.devnet.accounts.user;
    const weather = harness.devnet.services.find((service) => service.name === "weather");
    if (!weather?.example) throw new Error("no weather service");
    const id = "pay_integration_test_0000000001";
    // The official client, adding the identifier the way the extension's docs show.
    const client = new x402Client()
      .register(harness.devnet.network as Network, new ExactEvmScheme(privateKeyToAccount(user.privateKey as Hex)))
      .setSpendControls({ allowedAssets: [{ network: harness.devnet.network as Network, asset: harness.devnet.usdc }] });
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      if (paymentRequired.extensions) appendPaymentIdentifierToExtensions(paymentRequired.extensions, id);
    });
    let header: string | undefined;
    const pay = wrapFetchWithPayment(async (input, init) => {
      const request = new Request(input, init);
      header = request.headers.get("payment-signature") ?? header;
      return fetch(request);
    }, client);
    const before = await harness.usdcBalance(user.address as `0x${string}`);

    const first = await pay(weather.example.url);
    expect(first.status).toBe(200);
    const repeat = await fetch(weather.example.url, { headers: { "payment-signature": header ?? "" } });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(await repeat.text()).toBe(await first.text());
    expect(paymentIdentifierActivity(harness.devnet.faults, "weather")).toEqual({ seen: [id, id], settlements: 1 });
    expect(await harness.usdcBalance(user.address as `0x${string}`)).toBe(before - WEATHER);
  }, 60_000);
});

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the service to receive the payment");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A retry gets 409 while the first request with its key still runs (the contract): wait, then again. */
async function retryUntilAccepted(send: () => Promise<ChatResult>): Promise<ChatResult> {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const result = await send();
    if (result.response.status !== 409) return result;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the first request never released its Idempotency-Key");
}
