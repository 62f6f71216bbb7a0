/**
 * The payer's own withdrawal from a channel whose service will not refund, in the local world,
 * with the database store on the embedded database (PGlite) as the channel ledger and the
 * reconciler's run as the app runs it (reconcileOnce):
 *
 * The agent opens a channel with the deposit trap through runPurchase; then the service goes
 * away (its port closed: the deposit trap itself cooperates with refunds, its refusal is of
 * vouchers, so the refund fails here because the service cannot be reached). Its idle refund
 * fails three times (CHANNEL_WITHDRAW_AFTER_FAILURES); the next run initiates the withdrawal
 * (mined, the ledger "withdrawing", calls busy); the service still claims its voucher during the
 * delay; a run before the delay is over on the chain's clock finalizes nothing; after anvil's
 * time passes the delay, a run finalizes: the wallet gains exactly what the contract returned,
 * the ledger is closed, the deposit's reservation is freed and the journal holds the refund.
 */
import { parseAbi, parseEventLogs, createPublicClient, createTestClient, erc20Abi, http, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import type { Devnet } from "../../devnet";
import { loadContractArtifact } from "../../devnet/contracts/contract-artifacts";
import { refundIdleChannels } from "../../lib/agent/purchase/channels/refund-idle-channels";
import type { ChannelLedger } from "../../lib/channels/channel-ledger";
import { reconcileOnce } from "../../lib/doors/reconcile-once";
import type { Store } from "../../lib/store/store-types";
import type { ChatHarness } from "../support/chat-harness";
import { agentOf, buyAsAgent, startChannelWorld } from "../support/channel-world";

let harness: ChatHarness;
let devnet: Devnet;
let store: Store;
let channels: ChannelLedger;
let chain: ReturnType<typeof createPublicClient>;
const { abi } = loadContractArtifact("batchSettlement");
const contract = BATCH_SETTLEMENT_ADDRESS as Address;
const withdrawFinalizedAbi = parseAbi(["event WithdrawFinalized(bytes32 indexed channelId, uint128 amount)"]);

beforeAll(async () => {
  ({ harness, devnet, store, channels, chain } = await startChannelWorld({ CHANNEL_WITHDRAW_AFTER_FAILURES: "3" }));
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

const agent = () => agentOf(harness);
const usdc = (address: Address) => chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address] });
const onChain = async (channelId: Hex) =>
  (await chain.readContract({ address: contract, abi, functionName: "channels", args: [channelId] })) as readonly [bigint, bigint];

function buyFromTrap() {
  return buyAsAgent(harness, { service: "deposit-trap", intent: "channel-withdrawal", requestKey: "key:withdrawal", conversationId: "withdrawal" });
}

describe("the payer withdraws alone from a channel whose service will not refund", () => {
  it(
    "three failed refunds, then initiateWithdraw (calls busy), nothing before the delay on the chain's clock, then finalizeWithdraw: the wallet gets what the chain returned and the ledger closes",
    { timeout: 120_000 },
    async () => {
      const payer = agent().address;
      const held = await store.ledger.spentToday(payer);
      const outcome = await buyFromTrap();
      expect(outcome).toMatchObject({ status: "delivered" });
      const channelId = outcome.status === "delivered" ? outcome.voucher?.channelId : undefined;
      if (!channelId) throw new Error("the call named no channel");
      const opened = await channels.get(channelId);
      if (!opened) throw new Error("the ledger has no channel");
      expect(opened).toMatchObject({ state: "open", refundFailures: 0 });
      const price = opened.charged;
      expect(await store.ledger.spentToday(payer)).toEqual({ settled: held.settled + price, reserved: held.reserved + opened.deposited - price });

      await devnet.channels.closeService("deposit-trap");
      const refund = () =>
        refundIdleChannels({ channels, account: agent(), chain: harness.deps.chain, fetch: harness.deps.fetch, idleMs: 0, log: () => undefined });
      for (const failures of [1, 2]) {
        expect(await refund()).toMatchObject({ refunded: 0, failed: 1 });
        expect(await channels.get(channelId)).toMatchObject({ state: "open", refundFailures: failures });
      }
      // Two failures are not enough: the reconciler still leaves the channel to its refunds.
      expect((await reconcileOnce(harness.deps, () => undefined)).channelWithdrawals).toEqual({ started: 0, finished: 0, failed: 0 });
      expect(await refund()).toMatchObject({ refunded: 0, failed: 1 });
      expect(await channels.get(channelId)).toMatchObject({ state: "open", refundFailures: 3 });

      // The third failure: the next run initiates the withdrawal of everything unclaimed.
      expect((await reconcileOnce(harness.deps, () => undefined)).channelWithdrawals).toEqual({ started: 1, finished: 0, failed: 0 });
      const withdrawing = await channels.get(channelId);
      expect(withdrawing).toMatchObject({ state: "withdrawing", withdrawTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const initiated = await chain.getTransactionReceipt({ hash: withdrawing?.withdrawTx as Hex });
      expect(initiated.status).toBe("success");
      const [pendingAmount, initiatedAt] = (await chain.readContract({
        address: contract,
        abi,
        functionName: "pendingWithdrawals",
        args: [channelId],
      })) as readonly [bigint, number];
      expect(pendingAmount).toBe(opened.deposited);
      expect(withdrawing?.withdrawReadyAt).toBe(BigInt(initiatedAt) + BigInt(opened.config.withdrawDelay ?? 0));
      const acquired = await channels.acquire({
        identity: opened,
        price,
        budgets: { payer, payerLimit: 10_000_000n },
        reservationId: "withdrawal-call",
        leaseMs: 30_000,
      });
      expect(acquired.status).toBe("busy");

      // During the delay the service claims what its voucher allows.
      const round = (await devnet.channels.flush()).find((entry) => entry.service === "deposit-trap");
      expect(round).toMatchObject({ claims: [{ vouchers: 1 }] });
      expect(await onChain(channelId)).toEqual([opened.deposited, price]);
      // Not yet over on the chain's clock: nothing is sent, the channel waits.
      expect((await reconcileOnce(harness.deps, () => undefined)).channelWithdrawals).toEqual({ started: 0, finished: 0, failed: 0 });
      expect((await channels.get(channelId))?.state).toBe("withdrawing");

      const testClient = createTestClient({ mode: "anvil", transport: http(devnet.rpcUrl) });
      const latest = (await chain.getBlock({ blockTag: "latest" })).timestamp;
      await testClient.increaseTime({ seconds: Number((withdrawing?.withdrawReadyAt ?? 0n) - latest) });
      await testClient.mine({ blocks: 1 });
      const walletBefore = await usdc(payer);
      expect((await reconcileOnce(harness.deps, () => undefined)).channelWithdrawals).toEqual({ started: 0, finished: 1, failed: 0 });

      const refundRow = (await store.journal.history({ payer, status: "confirmed", limit: 50 })).find((row) => row.id.startsWith(`refund:${channelId}:`));
      expect(refundRow).toBeDefined();
      const finalized = await chain.getTransactionReceipt({ hash: refundRow?.txHash as Hex });
      const [event] = parseEventLogs({ abi: withdrawFinalizedAbi, eventName: "WithdrawFinalized", logs: finalized.logs });
      const returned = event?.args.amount;
      expect(returned).toBe(opened.deposited - price);
      expect(await usdc(payer)).toBe(walletBefore + (returned ?? 0n));
      expect(refundRow?.amount).toBe(returned);
      expect(await onChain(channelId)).toEqual([price, price]);
      expect(await channels.get(channelId)).toMatchObject({ state: "closed" });
      // The deposit's reservation is freed: the day holds the call it paid, nothing more.
      expect(await store.ledger.spentToday(payer)).toEqual({ settled: held.settled + price, reserved: held.reserved });
    },
  );
});
