/**
 * The agent pays every city guide whose earlier name ("Devnet City Guide: <City> <topic>") was
 * longer than the 32 characters x402 allows a service name: those guides' 402s were once refused
 * by @x402/core's own schema. Each is asked for as a person would ("Buy the museums guide for
 * Lisbon") through the chat handler with the offline demo model, which finds it by search among
 * more than a hundred guides and pays it from the agent wallet. The chain is the judge: each
 * payment's transaction moves exactly that guide's price from the agent to the merchant, and
 * nothing else moves.
 */
import { createPublicClient, erc20Abi, getAddress, http, parseEventLogs, parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITY_GUIDES } from "../../devnet/services/service-catalog";
import { findSequenceViolations } from "../../lib/stream";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

/** x402's limit on a service name (@x402/core's ResourceInfo schema). */
const MAX_SERVICE_NAME_CHARS = 32;
/** Chats in flight at once: the facilitator settles one transaction at a time anyway. */
const CONCURRENCY = 4;

let harness: ChatHarness;

beforeAll(async () => {
  harness = await startChatHarness();
});

afterAll(async () => {
  await harness?.stop();
});

/** A guide's city and topic, read from its service name ("Devnet Guide: <City> <topic>"). */
function cityAndTopic(serviceName: string): { city: string; topic: string } {
  const match = /^Devnet Guide: (\S+) (\S+)$/.exec(serviceName);
  if (!match) throw new Error(`not a guide's name: ${serviceName}`);
  return { city: match[1]!, topic: match[2]! };
}

/** The name the guide had before it was shortened to fit x402. */
function earlierName(serviceName: string): string {
  const { city, topic } = cityAndTopic(serviceName);
  return `Devnet City Guide: ${city} ${topic}`;
}

async function inPool<Item>(items: readonly Item[], limit: number, work: (item: Item) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

describe("every guide whose earlier name was too long for x402", () => {
  const longNamed = CITY_GUIDES.filter((guide) => earlierName(guide.serviceName).length > MAX_SERVICE_NAME_CHARS);

  it("is named within the limit now", () => {
    expect(longNamed.length).toBeGreaterThan(0);
    for (const guide of longNamed) expect(guide.serviceName.length, guide.serviceName).toBeLessThanOrEqual(MAX_SERVICE_NAME_CHARS);
  });

  it("is paid by the agent at exactly its price, each in its own transaction", { timeout: 90_000 }, async () => {
    const chain = createPublicClient({ transport: http(harness.devnet.rpcUrl) });
    const agent = getAddress(harness.devnet.accounts.agent.address);
    const merchant = getAddress(harness.devnet.accounts.merchant.address);
    const before = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
    const startedAt = performance.now();
    const paid: { name: string; price: bigint; txHash: Hex }[] = [];
    const failures: string[] = [];

    await inPool(longNamed, CONCURRENCY, async (guide) => {
      const listed = harness.devnet.services.find((service) => service.name === guide.name);
      const { city, topic } = cityAndTopic(guide.serviceName);
      try {
        if (!listed) throw new Error("not in the local world");
        const result = await harness.chat(userMessage(`Buy the ${topic} guide for ${city}`));
        expect(result.response.status).toBe(200);
        expect(findSequenceViolations(result.events)).toEqual([]);
        expect(result.errors).toEqual([]);
        expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
        expect(result.finish?.payments).toHaveLength(1);
        // The guide asked for, not a neighbour: its own URL, at its own price.
        expect(result.finish?.payments[0]).toMatchObject({ status: "delivered", amount: listed.price });
        expect(result.finish?.payments[0]?.resource?.split("?")[0]).toBe(listed.url);
        expect(result.text).toContain(city);
        paid.push({ name: guide.name, price: parseUnits(listed.price, 6), txHash: result.finish!.txHash as Hex });
      } catch (error) {
        failures.push(`${guide.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    expect(failures).toEqual([]);
    expect(paid.map((entry) => entry.name).sort()).toEqual(longNamed.map((guide) => guide.name).sort());

    // Each settlement's own Transfer: the agent to the merchant, exactly the guide's price.
    expect(new Set(paid.map((entry) => entry.txHash)).size).toBe(paid.length);
    for (const entry of paid) {
      const receipt = await chain.getTransactionReceipt({ hash: entry.txHash });
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter(
        (log) => getAddress(log.address) === getAddress(harness.devnet.usdc),
      );
      expect(
        transfers.map((log) => [getAddress(log.args.from), getAddress(log.args.to), log.args.value]),
        entry.name,
      ).toEqual([[agent, merchant, entry.price]]);
    }
    const total = paid.reduce((sum, entry) => sum + entry.price, 0n);
    expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)])).toEqual([before[0]! - total, before[1]! + total]);
    // Bounded: the whole set well inside a minute.
    expect(performance.now() - startedAt).toBeLessThan(60_000);
  });
});
