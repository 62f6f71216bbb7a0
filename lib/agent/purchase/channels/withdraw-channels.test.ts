/**
 * The payer's own withdrawal run (withdraw-channels.ts) on the embedded database's channel
 * ledger, with a chain that answers as the contract would: what it sends and when, and what
 * the ledger says after each run. The local world's run is tests/integration/channel-withdrawal.test.ts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChannelIdentity, ChannelLedger } from "../../../channels/channel-ledger";
import { createDatabaseStore, lazyDatabase } from "../../../store/create-database-store";
import type { Store } from "../../../store/store-types";
import type { WithdrawalChain } from "./channel-withdrawal-chain";
import { withdrawChannels } from "./withdraw-channels";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const PRICE = 1_000n;
const DEPOSIT = 50_000n;
const DELAY = 900;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as `0x${string}`;
const payer = hex(20);

let store: Store;
let channels: ChannelLedger;
beforeAll(() => {
  store = createDatabaseStore(lazyDatabase({ kind: "pglite" }));
  if (!store.channels) throw new Error("the database store has no channel ledger");
  channels = store.channels;
});
afterAll(async () => {
  await store.close();
});

/** A channel opened with a deposit and one call, whose refunds then failed `failures` times. */
async function failingChannel(failures: number, owner = payer): Promise<ChannelIdentity> {
  const identity: ChannelIdentity = {
    channelId: hex(32),
    payer: owner,
    receiver: hex(20),
    token: hex(20),
    network: "eip155:31337",
    serviceUrl: "http://127.0.0.1:4021/trap",
    config: { payer: owner, payerAuthorizer: owner, receiver: hex(20), receiverAuthorizer: hex(20), token: hex(20), withdrawDelay: DELAY, salt: hex(32) },
  };
  const budgets = { payer: owner, payerLimit: 10_000_000n };
  const first = await channels.acquire({ identity, price: PRICE, budgets, reservationId: `${identity.channelId}-v`, leaseMs: 30_000 });
  if (first.status !== "deposit-needed") throw new Error(first.status);
  await channels.reserveDeposit({ channelId: identity.channelId, lease: first.lease, amount: DEPOSIT, budgets, reservationId: `${identity.channelId}-d` });
  await channels.settle({
    channelId: identity.channelId,
    lease: first.lease,
    reservationId: `${identity.channelId}-v`,
    charged: PRICE,
    chargedAmount: PRICE,
    signedMax: PRICE,
    signature: `0x${"5a".repeat(65)}`,
    deposit: { total: DEPOSIT, txHash: hex(32), reservationId: `${identity.channelId}-d` },
  });
  for (let count = 0; count < failures; count++) {
    // The claim takes every idle channel: the others' refunds are given back uncounted.
    for (const claimed of await channels.claimForRefund(0, 1_000, 60_000)) {
      if (claimed.channelId === identity.channelId) await channels.refundRefused(identity.channelId);
      else await channels.refundFailed(claimed.channelId);
    }
  }
  return identity;
}

/** The contract as the payer sees it: one channel's balance and claims, its pending withdrawal, and the block time. */
function fakeChain(options: {
  now: bigint;
  claimed?: bigint;
  pending?: { amount: bigint; initiatedAt: bigint };
  refuseInitiate?: boolean;
  unconfirmed?: boolean;
}) {
  const sent: string[] = [];
  let pending = options.pending;
  const chain: WithdrawalChain & { sent: string[]; now: bigint; claimed: bigint } = {
    sent,
    now: options.now,
    claimed: options.claimed ?? PRICE,
    nowSeconds: () => Promise.resolve(chain.now),
    channel: () => Promise.resolve({ available: DEPOSIT - chain.claimed, ...(pending ? { pending } : {}) }),
    initiate(_config, _channelId, amount) {
      sent.push(`initiate:${amount}`);
      if (options.unconfirmed) return Promise.resolve({ ok: false, sent: true, reason: "unconfirmed", detail: "no receipt yet" });
      if (options.refuseInitiate) return Promise.resolve({ ok: false, reason: "WithdrawalExceedsAvailable", detail: "the chain refused initiateWithdraw" });
      pending = { amount, initiatedAt: chain.now };
      return Promise.resolve({ ok: true, txHash: hex(32), initiatedAt: chain.now });
    },
    finalize(config) {
      sent.push("finalize");
      if (!pending || chain.now < pending.initiatedAt + BigInt(config.withdrawDelay)) {
        return Promise.resolve({ ok: false, reason: "WithdrawDelayNotElapsed", detail: "too early" });
      }
      const amount = pending.amount < DEPOSIT - chain.claimed ? pending.amount : DEPOSIT - chain.claimed;
      pending = undefined;
      return Promise.resolve({ ok: true, txHash: hex(32), amount });
    },
  };
  return chain;
}

describe("withdrawChannels", () => {
  it("initiates after N failures only, finalizes on the chain's clock and not before, and records what the chain paid back", async () => {
    const identity = await failingChannel(2);
    const chain = fakeChain({ now: 1_000_000n });
    const run = () => withdrawChannels({ channels, account: { address: payer }, chain, failures: 3, log: () => undefined });
    expect(await run()).toEqual({ started: 0, finished: 0, failed: 0, amount: 0n });
    expect(chain.sent).toEqual([]);
    for (const claimed of await channels.claimForRefund(0, 1_000, 60_000)) await channels.refundRefused(claimed.channelId);

    expect(await run()).toEqual({ started: 1, finished: 0, failed: 0, amount: 0n });
    expect(chain.sent).toEqual([`initiate:${DEPOSIT - PRICE}`]);
    expect(await channels.get(identity.channelId)).toMatchObject({ state: "withdrawing", withdrawReadyAt: 1_000_000n + BigInt(DELAY) });
    // One second early on the chain's clock: nothing is sent.
    chain.now += BigInt(DELAY) - 1n;
    expect(await run()).toEqual({ started: 0, finished: 0, failed: 0, amount: 0n });
    expect(chain.sent).toHaveLength(1);
    // The service claimed more during the delay: the finalize pays back the rest, and that is recorded.
    chain.now += 1n;
    chain.claimed = 3n * PRICE;
    expect(await run()).toEqual({ started: 0, finished: 1, failed: 0, amount: DEPOSIT - 3n * PRICE });
    expect(await channels.get(identity.channelId)).toMatchObject({ state: "closed" });
    const refund = (await store.journal.history({ payer, status: "confirmed", limit: 50 })).find((row) => row.id.startsWith(`refund:${identity.channelId}:`));
    expect(refund?.amount).toBe(DEPOSIT - 3n * PRICE);
    expect(await run()).toEqual({ started: 0, finished: 0, failed: 0, amount: 0n });
  });

  it("records a withdrawal already pending on the chain without sending it again", async () => {
    const identity = await failingChannel(3);
    const chain = fakeChain({ now: 2_000_000n, pending: { amount: 7_000n, initiatedAt: 1_999_000n } });
    expect(await withdrawChannels({ channels, account: { address: payer }, chain, failures: 3, log: () => undefined })).toMatchObject({ started: 1 });
    expect(chain.sent).toEqual([]);
    expect(await channels.get(identity.channelId)).toMatchObject({ state: "withdrawing", withdrawReadyAt: 1_999_000n + BigInt(DELAY) });
  });

  it("opens the channel again when the chain refuses the initiation, and leaves another wallet's channel alone", async () => {
    const refused = await failingChannel(3);
    const chain = fakeChain({ now: 3_000_000n, refuseInitiate: true });
    const report = await withdrawChannels({ channels, account: { address: payer }, chain, failures: 3, log: () => undefined });
    expect(report).toMatchObject({ started: 0 });
    expect(await channels.get(refused.channelId)).toMatchObject({ state: "open", refundFailures: 3 });

    const other = await failingChannel(3, hex(20));
    const mine = fakeChain({ now: 3_000_000n });
    await withdrawChannels({ channels, account: { address: payer }, chain: mine, failures: 3, log: () => undefined });
    expect(mine.sent.filter((step) => step.startsWith("initiate"))).toHaveLength(1);
    expect(await channels.get(other.channelId)).toMatchObject({ state: "open" });
  });

  it("keeps the claim on an initiation sent without a receipt: the channel stays withdrawing and is not taken again while the claim lasts", async () => {
    const identity = await failingChannel(3);
    const chain = fakeChain({ now: 4_000_000n, unconfirmed: true });
    expect(await withdrawChannels({ channels, account: { address: payer }, chain, failures: 3, log: () => undefined })).toMatchObject({ started: 0 });
    expect(await channels.get(identity.channelId)).toMatchObject({ state: "withdrawing" });
    expect((await channels.claimForWithdrawal(3, 1_000, 60_000)).map((row) => row.channelId)).not.toContain(identity.channelId);
  });
});
