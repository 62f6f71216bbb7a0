/**
 * The chat endpoint against a real local world: real chain, real USDC, real facilitator,
 * real paid services, the demo model. Each finish reason from a real request.
 */
import { createPublicClient, decodeEventLog, erc20Abi, http, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../devnet/chain/dev-accounts";
import { findSequenceViolations, PAYMENT_STATUS_ORDER, type PaymentEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";

let harness: ChatHarness;

beforeAll(async () => {
  harness = await startChatHarness();
});

afterAll(async () => {
  await harness?.stop();
});

function priceOf(name: string): bigint {
  const service = harness.devnet.services.find((candidate) => candidate.name === name);
  if (!service) throw new Error(`no service ${name}`);
  return parseUnits(service.price, 6);
}

function statusesOf(result: ChatResult, id: string): string[] {
  return result.payments.filter((payment) => payment.id === id).map((payment) => payment.status);
}

function paymentIds(result: ChatResult): string[] {
  return [...new Set(result.payments.filter((payment) => payment.id.startsWith("pay_")).map((payment) => payment.id))];
}

/** The stream is valid protocol v1: no malformed line, statuses forward, one d: last. */
function expectValidStream(result: ChatResult) {
  expect(result.response.status).toBe(200);
  expect(result.items.filter((item) => item.kind === "malformed")).toEqual([]);
  expect(findSequenceViolations(result.events)).toEqual([]);
  expect(result.events.at(-1)?.type).toBe("finish");
}

/** The hash names a mined, successful transaction that moved exactly `amount` USDC to `payTo`. */
async function expectTransfer(txHash: string, from: string, payTo: string, amount: bigint) {
  const client = createPublicClient({ transport: http(harness.devnet.rpcUrl) });
  const receipt = await client.getTransactionReceipt({ hash: txHash as `0x${string}` });
  expect(receipt.status).toBe("success");
  const transfers = receipt.logs
    .filter((log) => log.address.toLowerCase() === harness.devnet.usdc.toLowerCase())
    .flatMap((log) => {
      try {
        const decoded = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics });
        return decoded.eventName === "Transfer" ? [decoded.args] : [];
      } catch {
        return [];
      }
    });
  expect(transfers).toEqual([{ from, to: payTo, value: amount }]);
}

describe("finish reasons from real requests", () => {
  it("stop: a chat with no payment", async () => {
    const result = await harness.chat(userMessage("Hello, what can you do?"));
    expectValidStream(result);
    expect(result.text).toMatch(/offline demo model/i);
    expect(result.finish).toMatchObject({ finishReason: "stop", txHash: null, payments: [] });
  });

  it("payment-complete: the agent wallet buys the weather, reporting the settlement before the data", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
    const price = priceOf("weather");
    const [agentBefore, merchantBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);

    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    expectValidStream(result);
    const [id] = paymentIds(result);
    expect(statusesOf(result, id!)).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    const discovery = result.payments.filter((payment) => payment.id.startsWith("disc_")).map((payment) => payment.status);
    expect(discovery).toEqual(["discovering", "discovered"]);
    // Each listing carries how to call it, as the service declared it in its bazaar extension.
    const listed = result.payments.find((payment) => payment.status === "discovered")?.services ?? [];
    expect(listed.find((service) => service.name === "Devnet Weather")?.usage).toMatch(/^GET \?city=<string, required, e\.g\. [^>]+>$/);

    const confirmed = result.payments.find((payment) => payment.status === "confirmed") as PaymentEvent;
    const confirmedIndex = result.events.findIndex((event) => event.type === "payment" && event.payment.status === "confirmed");
    const firstDataText = result.events.findIndex((event) => event.type === "text" && /Lisbon/.test(event.text));
    expect(confirmedIndex).toBeGreaterThan(-1);
    expect(firstDataText).toBeGreaterThan(confirmedIndex);
    expect(result.text).toContain("Lisbon");

    expect(result.finish).toMatchObject({ finishReason: "payment-complete", txHash: confirmed.txHash });
    expect(result.finish?.payments).toEqual([expect.objectContaining({ id, status: "delivered", amount: "0.01", payTo: merchant, txHash: confirmed.txHash })]);
    await expectTransfer(confirmed.txHash!, agent, merchant, price);
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - price);
    expect(await harness.usdcBalance(merchant)).toBe(merchantBefore + price);
  });

  it("payment-complete: a service that speaks only x402 v1 is paid too", async () => {
    const result = await harness.chat(userMessage("Show me EUR exchange rates"));
    expectValidStream(result);
    expect(result.finish?.finishReason).toBe("payment-complete");
    expect(result.finish?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("limit-exceeded: the premium report costs more than the default per-payment limit; nothing is signed", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const result = await harness.chat(userMessage("Buy the premium report"));
    expectValidStream(result);
    const [id] = paymentIds(result);
    expect(statusesOf(result, id!)).toEqual(["quoted", "failed"]);
    expect(result.payments.at(-1)).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(result.finish).toMatchObject({ finishReason: "limit-exceeded", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
  });

  it("limit-exceeded: limits sent by the client apply, and cannot be raised past the server's caps", async () => {
    const lowered = await harness.chat({ ...userMessage("What's the weather in Porto?"), spendingLimits: { perPayment: "0.005" } });
    expect(lowered.finish?.finishReason).toBe("limit-exceeded");
    const raised = await harness.chat({ ...userMessage("Buy the premium report"), spendingLimits: { perPayment: "1000000", perRequest: 1000000 } });
    // The cap (10 USDC by default) still allows 5 USDC: the clamp keeps the client's wish within the operator's.
    expect(raised.finish?.finishReason).toBe("payment-complete");
  });

  it("service-unavailable: a listed service whose server is down", async () => {
    const result = await harness.chat(userMessage('Translate "good morning"'));
    expectValidStream(result);
    expect(result.payments.at(-1)).toMatchObject({ status: "failed", reason: "service-unavailable" });
    expect(result.finish).toMatchObject({ finishReason: "service-unavailable", txHash: null });
  });

  it("every payment status moves forward in protocol order", () => {
    expect(PAYMENT_STATUS_ORDER.indexOf("confirmed")).toBeLessThan(PAYMENT_STATUS_ORDER.indexOf("delivered"));
  });
});

describe("insufficient balance", () => {
  let poor: ChatHarness;
  beforeAll(async () => {
    // The local world's unfunded account (a fixed anvil dev account) as the agent wallet.
    poor = await startChatHarness({ env: { AGENT_PRIVATE_KEY: devAccounts().unfunded.privateKey } });
  });
  afterAll(async () => {
    await poor?.stop();
  });

  it("insufficient-balance: an agent wallet without USDC never signs", async () => {
    const result = await poor.chat(userMessage("What's the weather in Lisbon?"));
    expectValidStream(result);
    expect(result.payments.at(-1)).toMatchObject({ status: "failed", reason: "insufficient-balance" });
    expect(result.payments.some((payment) => payment.status === "signing")).toBe(false);
    expect(result.finish).toMatchObject({ finishReason: "insufficient-balance", txHash: null });
  });
});
