/**
 * The local world after a long idle stretch. With instant mining alone anvil mines only when a
 * transaction arrives, so its latest block (whose timestamp is the time every `eth_call` runs
 * at) stays as old as the last transaction. The facilitator verifies a payment by simulating
 * `transferWithAuthorization` at the latest block, and the agent dates its authorizations from
 * `now − 60 s`: once the chain had been idle for a minute, USDC answered "authorization is not
 * yet valid", every verification failed and every payment ended "expired unused". The devnet's
 * heartbeat (anvil's mixed mining) mines a block every few seconds, transactions or not.
 *
 * Idle time is made with anvil's clock, not waited for: the clock is set back, one block is
 * mined, and the clock is set right again. The latest block is then minutes old while the
 * chain's next block carries the wall clock's time, exactly as after minutes with no block.
 */
import { createPublicClient, http, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HEARTBEAT_SECONDS } from "../../devnet/devnet-options";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

/** Well past the 60 s the agent dates its authorizations back, and past three minutes. */
const IDLE_SECONDS = 200;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Anvil's own JSON-RPC, for the clock control viem's test actions do not cover (`evm_setTime`). */
async function anvil(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Leaves the chain as `seconds` with no block would; resolves with the aged latest block. */
async function leaveIdle(harness: ChatHarness, seconds: number) {
  const rpcUrl = harness.devnet.rpcUrl;
  const chain = createPublicClient({ transport: http(rpcUrl) });
  await anvil(rpcUrl, "evm_setTime", [nowSeconds() - seconds]);
  await anvil(rpcUrl, "evm_mine", []);
  const aged = await chain.getBlock({ blockTag: "latest" });
  const clockSetRightAt = nowSeconds();
  await anvil(rpcUrl, "evm_setTime", [clockSetRightAt]);
  // The set-up itself must hold, or the payments below would prove nothing.
  expect(clockSetRightAt - Number(aged.timestamp)).toBeGreaterThanOrEqual(seconds - 2);
  return { aged, clockSetRightAt, chain: chain as PublicClient };
}

function weatherPrice(harness: ChatHarness): bigint {
  const weather = harness.devnet.services.find((service) => service.name === "weather");
  if (!weather?.amount) throw new Error("no priced weather service in the local world");
  return BigInt(weather.amount);
}

describe("instant mining with no heartbeat (the world as it was)", () => {
  let harness: ChatHarness;
  beforeAll(async () => {
    // The shortest authorization the app allows, so that "expired unused" is proven quickly.
    harness = await startChatHarness({ devnet: { heartbeatSeconds: 0 }, env: { AGENT_AUTHORIZATION_TTL_SECONDS: "10" } });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("a chain idle past the authorization's start refuses every payment: 402, expired unused", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const { aged, chain } = await leaveIdle(harness, IDLE_SECONDS);

    const result = await harness.chat(userMessage("What is the weather in Lisbon?"));

    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    expect(result.payments.find((payment) => payment.status === "failed")?.message).toMatch(/refused the payment.*expired unused/);
    expect(await harness.usdcBalance(agent)).toBe(before);
    // Nothing mined since: the chain's time stood still the whole while.
    expect(await chain.getBlockNumber({ cacheTime: 0 })).toBe(aged.number);
  });
});

describe("instant mining with the default heartbeat", () => {
  let harness: ChatHarness;
  beforeAll(async () => {
    harness = await startChatHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("after minutes with no block, the chain catches up on its own and the agent's payment settles", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
    const [agentBefore, merchantBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
    const { aged, clockSetRightAt, chain } = await leaveIdle(harness, IDLE_SECONDS);

    // Within one heartbeat a block arrives that no transaction asked for, dated by the clock.
    await expect
      .poll(async () => Number((await chain.getBlock({ blockTag: "latest" })).timestamp), { timeout: (DEFAULT_HEARTBEAT_SECONDS + 3) * 1000, interval: 100 })
      .toBeGreaterThanOrEqual(clockSetRightAt);
    const heartbeat = await chain.getBlock({ blockNumber: aged.number + 1n });
    expect(heartbeat.transactions).toEqual([]);

    const result = await harness.chat(userMessage("What is the weather in Lisbon?"));

    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    const confirmed = result.payments.find((payment) => payment.status === "confirmed");
    expect(confirmed?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.getTransactionReceipt({ hash: confirmed?.txHash as `0x${string}` });
    expect(receipt.status).toBe("success");
    const price = weatherPrice(harness);
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - price);
    expect(await harness.usdcBalance(merchant)).toBe(merchantBefore + price);
  });
});
