/**
 * The agent paying the local world's channel services (x402 `batch-settlement`) through its own
 * purchase path, with the database store on the embedded database (PGlite) as its channel
 * ledger, wired as the chat route wires it:
 *
 * 1. 200 calls to tick-feed through runPurchase: one deposit transaction, no block mined while
 *    it pays with vouchers; the service's claim round settles in at most two transactions; the
 *    payee gains exactly 200 prices, which is the ledger's committed sum and the sum of the
 *    journal's delivered vouchers; the idle refund returns the rest of the deposit to the wallet.
 * 2. The deposit trap takes the deposit and refuses the next voucher: the refusal is reported in
 *    words and that call's budget is released.
 */
import { erc20Abi, type Address, type createPublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "../../devnet";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { recordChannelClaims } from "../../lib/agent/purchase/channels/record-channel-claims";
import { refundIdleChannels } from "../../lib/agent/purchase/channels/refund-idle-channels";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase, type PurchaseDependencies, type PurchaseOutcome } from "../../lib/agent/purchase/run-purchase";
import type { ChannelLedger } from "../../lib/channels/channel-ledger";
import type { Store } from "../../lib/store/store-types";
import { StreamWriter, type PaymentEvent } from "../../lib/stream";
import type { ChatHarness } from "../support/chat-harness";
import { agentOf, startChannelWorld } from "../support/channel-world";

let harness: ChatHarness;
let devnet: Devnet;
let store: Store;
let channels: ChannelLedger;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  // Deposits sized for 250 calls (CHANNEL_DEPOSIT_CALLS, as an operator sets it): one deposit
  // covers the 200 calls below and leaves some to refund.
  ({ harness, devnet, store, channels, chain } = await startChannelWorld({ CHANNEL_DEPOSIT_CALLS: "250" }));
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

const agent = () => agentOf(harness);
const service = (name: string) => {
  const found = devnet.services.find((candidate) => candidate.name === name);
  if (!found || found.scheme !== "batch-settlement" || !found.payTo) throw new Error(`the local world has no channel service ${name}`);
  return found;
};
const usdc = (address: Address) => chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** The chat route's purchase dependencies. */
function purchaseDeps(): PurchaseDependencies {
  return purchaseDependenciesOf(harness.deps);
}

let sequence = 0;
async function buy(name: string, daily = 10_000_000n): Promise<{ outcome: PurchaseOutcome; events: PaymentEvent[]; tracker: PaymentTracker }> {
  const paid = service(name);
  const events: PaymentEvent[] = [];
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
  const record = writer.payment.bind(writer);
  writer.payment = (payment) => {
    events.push(payment as PaymentEvent);
    record(payment);
  };
  sequence += 1;
  const tracker = new PaymentTracker(writer, { journal: store.journal, requestKey: `key:channel-${sequence}`, conversationId: "channels", now: Date.now });
  const outcome = await runPurchase(purchaseDeps(), {
    service: paid.name,
    url: paid.example?.url ?? paid.url,
    method: "GET",
    intent: `channel-call-${sequence}`,
    payer: { kind: "agent", account: agent() },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily },
    maxPayments: 3,
    tracker,
    deadline: Date.now() + 30_000,
  });
  await tracker.recorded();
  return { outcome, events, tracker };
}

describe("the agent pays a channel service through its purchase path", () => {
  it(
    "200 calls to tick-feed: one deposit, no block during the vouchers, a claim round of at most two transactions paying exactly 200 prices, and the idle refund returns the rest",
    { timeout: 180_000 },
    async () => {
      const tick = service("tick-feed");
      const price = BigInt(tick.amount ?? "0");
      expect(price).toBe(1_000n);
      const payer = agent().address;
      const payee = tick.payTo as Address;
      const before = { payer: await usdc(payer), payee: await usdc(payee), spent: (await store.ledger.spentToday(payer)).settled };

      const first = await buy("tick-feed");
      expect(first.outcome).toMatchObject({ status: "delivered", amount: "0.001", voucher: { cumulative: "1000" } });
      const depositTx = first.outcome.status === "delivered" ? first.outcome.txHash : "";
      expect(depositTx).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await chain.getTransactionReceipt({ hash: depositTx as `0x${string}` })).status).toBe("success");
      expect(first.events.map((event) => event.status)).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
      expect(first.events.find((event) => event.status === "signing")?.message).toMatch(/a deposit of 0\.25 USDC opens channel 0x/);
      const channelId = first.outcome.status === "delivered" ? first.outcome.voucher?.channelId : undefined;
      if (!channelId) throw new Error("the first call named no channel");
      const afterDeposit = await chain.getBlockNumber();

      const timings: number[] = [];
      for (let call = 2; call <= 200; call++) {
        const startedAt = performance.now();
        const { outcome, events } = await buy("tick-feed");
        timings.push(performance.now() - startedAt);
        expect(outcome, `call ${call}`).toMatchObject({ status: "delivered", txHash: "", voucher: { channelId, cumulative: String(call * 1000) } });
        if (call === 2) expect(events.find((event) => event.status === "verifying")?.message).toMatch(/voucher 2 on channel 0x/);
      }
      expect(await chain.getBlockNumber(), "no transaction while paying with vouchers").toBe(afterDeposit);
      const median = [...timings].sort((left, right) => left - right)[Math.floor(timings.length / 2)] ?? 0;
      console.log(
        `channel payments: 199 voucher calls through runPurchase on PGlite, median ${median.toFixed(1)} ms a call (the unpaid ask, the 402, acquire, the voucher, the paid call, settle)`,
      );
      expect(await channels.get(channelId)).toMatchObject({ charged: 200_000n, signedMax: 200_000n, deposited: 250_000n, state: "open" });

      const rounds = await devnet.channels.flush();
      const round = rounds.find((entry) => entry.service === "tick-feed");
      expect(round).toMatchObject({
        claims: [{ vouchers: 1 }],
        settle: { transaction: expect.stringMatching(/^0x/) },
      });
      expect(await chain.getBlockNumber()).toBeLessThanOrEqual(afterDeposit + 2n);
      const gained = (await usdc(payee)) - before.payee;
      expect(gained).toBe(200n * price);
      // The ledger committed each voucher at its price; the journal holds 200 delivered vouchers of the channel.
      expect((await store.ledger.spentToday(payer)).settled - before.spent).toBe(gained);
      const delivered = (await store.journal.history({ payer, status: "delivered", service: "tick-feed", limit: 500 })).filter(
        (row) => row.scheme === "batch-settlement",
      );
      expect(delivered).toHaveLength(200);
      expect(delivered.reduce((sum, row) => sum + (row.amount ?? 0n), 0n)).toBe(gained);

      // The claim and the receiver's payout, as the chain shows them, become the channel's journal
      // rows: the journal equals the chain.
      expect(await recordChannelClaims({ channels, chain: harness.deps.chain, payer })).toEqual({ recorded: 1, payouts: 1, failed: 0 });
      expect(await recordChannelClaims({ channels, chain: harness.deps.chain, payer })).toEqual({ recorded: 0, payouts: 0, failed: 0 });
      expect(await channels.get(channelId)).toMatchObject({ totalClaimed: gained });
      const confirmed = await store.journal.history({ payer, status: "confirmed", limit: 50 });
      const claims = confirmed.filter((row) => row.id.startsWith(`claim:${channelId}:`));
      expect(claims.map((row) => row.amount)).toEqual([gained]);
      const payouts = confirmed.filter((row) => row.id.startsWith(`settle:${channelId}:`));
      expect(payouts.map((row) => [row.amount, row.txHash])).toEqual([[gained, round?.settle?.transaction]]);
      // The history names the service and says what each row is.
      expect(claims[0]).toMatchObject({ service: "tick-feed", message: expect.stringMatching(/^The service claimed/) });
      expect(payouts[0]).toMatchObject({ service: "tick-feed", message: expect.stringMatching(/^The service was paid out/) });

      // Idle at once (0 s): the refund returns what the deposit still holds.
      const refund = await refundIdleChannels({ channels, account: agent(), chain: harness.deps.chain, fetch: harness.deps.fetch, idleMs: 0 });
      expect(refund).toMatchObject({ refunded: 1, failed: 0 });
      expect(await usdc(payer)).toBe(before.payer - gained);
      expect(await channels.get(channelId)).toMatchObject({ state: "closed" });
    },
  );

  it("the deposit trap takes the deposit and refuses the voucher: refused in words, that call's budget released", { timeout: 60_000 }, async () => {
    const payer = agent().address;
    const first = await buy("deposit-trap");
    expect(first.outcome).toMatchObject({ status: "delivered" });
    const held = await store.ledger.spentToday(payer);

    const second = await buy("deposit-trap");
    expect(second.outcome).toMatchObject({ status: "failed", reason: "payment-failed" });
    const message = second.outcome.status === "failed" ? second.outcome.message : "";
    expect(message).toMatch(/voucher was refused, so nothing was spent/);
    expect(second.events.at(-1)).toMatchObject({ status: "failed" });
    expect(second.tracker.committedAmount).toBe(0n);
    expect(await store.ledger.spentToday(payer)).toEqual(held);
    // The ledger took it as nothing spent: the voucher's row failed (a voucher the service may have counted stays pending).
    const paymentId = second.outcome.status === "failed" ? second.outcome.paymentId : "";
    expect(await store.journal.get(paymentId)).toMatchObject({ status: "failed", scheme: "batch-settlement" });
  });
});
