/**
 * `npm run dev` started again: the local chain is a new one, the embedded database the one of the
 * run before. The ledger remembers a channel with a deposit that the new chain never had, so its
 * service refuses the next voucher (`channel_not_found`). Nothing is spent; the agent reads the
 * chain, finds nothing there for the channel and sets the ledger's channel empty, so the call
 * after opens it again with a deposit on the new chain instead of every call being refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PurchaseOutcome } from "../../lib/agent/purchase/run-purchase";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { agentOf, buyAsAgent } from "../support/channel-world";

const dataDir = mkdtempSync(path.join(tmpdir(), "channel-restart-"));
let running: ChatHarness | undefined;

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One run of the local world on the same database folder, as `npm run dev` starts it. */
async function startRun(): Promise<ChatHarness> {
  const store = createDatabaseStore(lazyDatabase({ kind: "pglite", dataDir }));
  running = await startChatHarness({ store, devnet: { channelClaimIntervalSeconds: 0, heartbeatSeconds: 0 } });
  return running;
}

let sequence = 0;
function buyTick(harness: ChatHarness): Promise<PurchaseOutcome> {
  sequence += 1;
  return buyAsAgent(harness, { service: "tick-feed", intent: `restart-call-${sequence}`, requestKey: `key:restart-${sequence}`, conversationId: "restart" });
}

describe("a channel remembered from a local world that started again", () => {
  it("is refused once with nothing spent and set aside; the next call opens it again with a deposit on the new chain", { timeout: 120_000 }, async () => {
    const first = await startRun();
    expect(await buyTick(first)).toMatchObject({ status: "delivered", voucher: { cumulative: "1000" } });
    expect(await buyTick(first)).toMatchObject({ status: "delivered", voucher: { cumulative: "2000" } });
    await first.stop();
    running = undefined;

    const second = await startRun();
    const agent = agentOf(second).address;
    const before = await second.usdcBalance(agent);
    const refused = await buyTick(second);
    expect(refused).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: expect.stringMatching(/channel_not_found.*nothing was spent\. The chain holds no such channel/),
    });
    expect(await second.usdcBalance(agent)).toBe(before);

    const reopened = await buyTick(second);
    expect(reopened).toMatchObject({ status: "delivered", voucher: { cumulative: "1000" } });
    const depositTx = reopened.status === "delivered" ? reopened.txHash : "";
    expect(depositTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await second.usdcBalance(agent)).toBeLessThan(before);
    expect(await buyTick(second)).toMatchObject({ status: "delivered", voucher: { cumulative: "2000" } });
  });
});
