/**
 * Payments when the other side misbehaves: the facilitator refuses, settlement fails or times
 * out after broadcasting, a service fails after receiving the payment, a service hangs past
 * the deadline. Each request ends with the right finish reason, a settled payment is always
 * reported with its hash, nothing is paid twice, and the ledger agrees with the chain.
 */
import { parseUnits } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import type { NetworkConfig } from "../../lib/network/network-config";
import { decodeAll, findSequenceViolations, type FinishEvent, type StreamEvent } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

// Long enough for a 10 s authorization to expire and be proven unused, short enough to test the cut-off.
const DEADLINE_MS = 16_000;
let harness: ChatHarness;
let agent: `0x${string}`;

beforeAll(async () => {
  harness = await startChatHarness({
    devnet: { slowDelayMs: 30_000, settleTimeoutMs: 500, facilitatorTimeoutMs: 3_000 },
    env: { CHAT_DEADLINE_MS: String(DEADLINE_MS), AGENT_AUTHORIZATION_TTL_SECONDS: "10", OUTBOUND_TIMEOUT_MS: "30000" },
  });
  agent = harness.devnet.accounts.agent.address as `0x${string}`;
});

afterEach(async () => {
  await harness.devnet.faults.reset();
});

afterAll(async () => {
  await harness?.stop();
});

/**
 * Chats and records the agent's daily reservation at each `pending` event: a payment whose
 * signature may have reached a service must still hold its budget then.
 */
async function chatWatchingReservation(content: string) {
  const reservedWhilePending: bigint[] = [];
  const result = await harness.chat(userMessage(content), {
    onEvent: async (event) => {
      if (event.type === "payment" && event.payment.status === "pending") {
        reservedWhilePending.push((await harness.deps.store.ledger.spentToday(agent)).reserved);
      }
    },
  });
  return { result, reservedWhilePending };
}

const PRICE = parseUnits("0.01", 6);

async function ledgerTotal(): Promise<bigint> {
  const entries = await harness.deps.store.ledger.entries(agent);
  return entries.reduce((sum, entry) => sum + entry.amount, 0n);
}

describe("faults", () => {
  // The service held the signature, so its "402" proves nothing: the reservation stays until
  // the chain shows the authorization expired unused, and only then is it released.
  it("payment-failed: the facilitator refuses to verify; held until the chain proves nothing moved, then released", async () => {
    await harness.devnet.faults.set({ verifyFails: true });
    const before = await harness.usdcBalance(agent);
    const { result, reservedWhilePending } = await chatWatchingReservation("What's the weather in Lisbon?");
    expect(findSequenceViolations(result.events)).toEqual([]);
    expect(reservedWhilePending).toEqual([PRICE]);
    expect(result.payments.at(-1)).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: expect.stringMatching(/expired unused, so nothing was spent/),
    });
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });

  it("payment-failed: settlement fails; held until proven, nothing moves", async () => {
    await harness.devnet.faults.set({ settleFails: true });
    const before = await harness.usdcBalance(agent);
    const { result, reservedWhilePending } = await chatWatchingReservation("What's the weather in Porto?");
    expect(reservedWhilePending).toEqual([PRICE]);
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });

  it("a settlement that times out after broadcasting is found on chain and reported with its hash, once", async () => {
    await harness.devnet.faults.set({ settleTimesOut: true });
    const before = await harness.usdcBalance(agent);
    const ledgerBefore = await ledgerTotal();
    const result = await harness.chat(userMessage("What's the weather in Madrid?"));
    expect(findSequenceViolations(result.events)).toEqual([]);
    const confirmed = result.payments.find((payment) => payment.status === "confirmed");
    expect(confirmed?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(result.finish?.txHash).toBe(confirmed?.txHash);
    expect(await harness.usdcBalance(agent)).toBe(before - PRICE);
    expect((await ledgerTotal()) - ledgerBefore).toBe(PRICE);
    // Paid but not delivered: the outcome says so rather than "complete".
    expect(result.finish?.finishReason).toBe("payment-failed");
  });

  it("payment-failed: a service that fails after receiving the payment is proven unpaid once the authorization expires", async () => {
    await harness.devnet.faults.set({ failingServices: ["weather"] });
    const before = await harness.usdcBalance(agent);
    const result = await harness.chat(userMessage("What's the weather in Oslo?"));
    expect(findSequenceViolations(result.events)).toEqual([]);
    const statuses = result.payments.filter((payment) => payment.id.startsWith("pay_")).map((payment) => payment.status);
    expect(statuses).toEqual(["quoted", "signing", "verifying", "pending", "failed"]);
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });

  it("a service that hangs after taking the payment: its authorization expires and is proven unused inside the request", async () => {
    const before = await harness.usdcBalance(agent);
    const { result, reservedWhilePending } = await chatWatchingReservation("Run an analysis on ethereum");
    expect(result.elapsedMs).toBeLessThan(DEADLINE_MS);
    expect(findSequenceViolations(result.events)).toEqual([]);
    expect(result.events.at(-1)?.type).toBe("finish");
    expect(reservedWhilePending.length).toBeGreaterThan(0);
    expect(reservedWhilePending.every((amount) => amount > 0n)).toBe(true);
    const statuses = result.payments.filter((payment) => payment.id.startsWith("pay_")).map((payment) => payment.status);
    expect(statuses).toEqual(["quoted", "signing", "verifying", "pending", "failed"]);
    expect(result.payments.at(-1)?.message).toMatch(/timed out.*expired unused/);
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });

  it("payment-failed: a facilitator that hangs makes the service give up; held until proven, nothing moves", async () => {
    // Discovery lives on the same facilitator: look the service up before it hangs.
    await harness.deps.discovery.find("weather");
    await harness.devnet.faults.set({ facilitatorHangs: true });
    const before = await harness.usdcBalance(agent);
    const { result, reservedWhilePending } = await chatWatchingReservation("What's the weather in Lima?");
    expect(findSequenceViolations(result.events)).toEqual([]);
    expect(reservedWhilePending).toEqual([PRICE]);
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(agent)).reserved).toBe(0n);
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 9;
}

/** The same world, with one of the agent's own endpoints moved to a port where nothing listens. */
async function chatWith(network: Partial<NetworkConfig>, content: string) {
  const deps = createAppDependencies(harness.env, {
    network: { ...harness.deps.network, ...network },
    store: harness.deps.store,
    baseModel: harness.deps.baseModel,
  });
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(userMessage(content)) }),
    () => deps,
  );
  expect(response.status).toBe(200);
  const events = decodeAll(await response.text()).flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
  expect(findSequenceViolations(events)).toEqual([]);
  return { events, finish: (events.at(-1) as { finish: FinishEvent }).finish };
}

describe("the agent's own dependencies down", () => {
  it("service-unavailable: the facilitator (discovery) is down", async () => {
    const port = await closedPort();
    const { events, finish } = await chatWith(
      { facilitatorUrl: `http://127.0.0.1:${port}`, outboundAllowlist: [...harness.deps.network.outboundAllowlist, `127.0.0.1:${port}`] },
      "What's the weather in Quito?",
    );
    expect(events.some((event) => event.type === "payment" && event.payment.status === "failed" && event.payment.id.startsWith("disc_"))).toBe(true);
    expect(finish).toMatchObject({ finishReason: "service-unavailable", txHash: null, payments: [] });
  });

  it("payment-failed: the chain's RPC is unreachable, so nothing is signed", async () => {
    const port = await closedPort();
    const before = await harness.usdcBalance(agent);
    const { events, finish } = await chatWith({ rpcUrl: `http://127.0.0.1:${port}` }, "What's the weather in Accra?");
    expect(events.some((event) => event.type === "payment" && event.payment.status === "signing")).toBe(false);
    expect(finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(await harness.usdcBalance(agent)).toBe(before);
  });
});
