/**
 * The channel ledger on the embedded database (PGlite) and on a PostgreSQL server: the lease,
 * the deposit and voucher budgets, the journal rows, and 50 concurrent calls from two instances
 * on one channel under a scope's budget.
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { createDatabaseStore, lazyDatabase, type LazyDatabase } from "../store/create-database-store";
import type { Store } from "../store/store-types";
import { BUSY_POLL_MS } from "./database-channel-ledger";
import { ChannelLeaseLostError, type ChannelBudgets, type ChannelIdentity, type ChannelLedger } from "./channel-ledger";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const PRICE = 1_000n;
const DEPOSIT = 100_000n;
const SIGNATURE = `0x${"5a".repeat(65)}` as const;
const TX = `0x${"ab".repeat(32)}` as const;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as `0x${string}`;

function newIdentity(): ChannelIdentity {
  return {
    channelId: hex(32),
    payer: hex(20),
    receiver: hex(20),
    token: hex(20),
    network: "eip155:31337",
    serviceUrl: "http://127.0.0.1:4021/tick",
    config: { payer: "0x01", withdrawDelay: 900, salt: "0x00" },
  };
}

type Fixture = { store: Store; channels: ChannelLedger; database: LazyDatabase };

/** Opens a channel: deposit DEPOSIT with its first voucher (PRICE), as the first call to a payee does. */
async function openChannel(channels: ChannelLedger, identity: ChannelIdentity, budgets: ChannelBudgets, prefix = "open") {
  const first = await channels.acquire({ identity, price: PRICE, budgets, reservationId: `${prefix}-v`, leaseMs: 30_000 });
  if (first.status !== "deposit-needed") throw new Error(`expected deposit-needed, got ${first.status}`);
  expect(await channels.reserveDeposit({ channelId: identity.channelId, lease: first.lease, amount: DEPOSIT, budgets, reservationId: `${prefix}-d` })).toEqual({
    ok: true,
  });
  await channels.settle({
    channelId: identity.channelId,
    lease: first.lease,
    reservationId: `${prefix}-v`,
    charged: first.cumulative,
    chargedAmount: PRICE,
    signedMax: first.cumulative,
    signature: SIGNATURE,
    deposit: { total: DEPOSIT, txHash: TX, reservationId: `${prefix}-d` },
  });
}

async function voucher(channels: ChannelLedger, identity: ChannelIdentity, budgets: ChannelBudgets, reservationId: string) {
  const result = await channels.acquire({ identity, price: PRICE, budgets, reservationId, leaseMs: 30_000 });
  if (result.status !== "voucher")
    throw new Error(`expected a voucher, got ${JSON.stringify(result, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value))}`);
  return result;
}

function describeChannelLedger(name: string, open: () => Promise<LazyDatabase>) {
  describe(`${name}: channel ledger`, () => {
    let fixture: Fixture | undefined;
    beforeAll(async () => {
      const database = await open();
      const store = createDatabaseStore(database);
      if (!store.channels) throw new Error("the database store has no channel ledger");
      fixture = { store, channels: store.channels, database };
    });
    afterAll(async () => {
      await fixture?.database.close();
    });
    const given = () => {
      if (!fixture) throw new Error("the database did not open (see beforeAll)");
      return fixture;
    };

    it("asks for a deposit under a lease on a new channel, is busy for a second call, and gives charged + price once the deposit settled", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      const first = await channels.acquire({
        identity,
        price: PRICE,
        budgets,
        reservationId: "n-v1",
        leaseMs: 30_000,
        journal: { paymentId: "pay_n1", service: "Ticks", resource: "http://127.0.0.1:4021/tick?symbol=ETH", requestKey: "key:n" },
      });
      expect(first).toMatchObject({ status: "deposit-needed", channel: undefined, room: 1_000_000n, cumulative: PRICE });
      const second = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "n-v2", leaseMs: 30_000 });
      expect(second.status).toBe("busy");
      expect(second).toEqual({ status: "busy", retryInMs: BUSY_POLL_MS });
      if (first.status !== "deposit-needed") throw new Error(first.status);
      await channels.reserveDeposit({
        channelId: identity.channelId,
        lease: first.lease,
        amount: DEPOSIT,
        budgets,
        reservationId: "n-d",
        journal: { paymentId: "pay_nd" },
      });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: 0n, reserved: DEPOSIT });
      await channels.settle({
        channelId: identity.channelId,
        lease: first.lease,
        reservationId: "n-v1",
        charged: PRICE,
        chargedAmount: PRICE,
        signedMax: PRICE,
        signature: SIGNATURE,
        deposit: { total: DEPOSIT, txHash: TX, reservationId: "n-d" },
      });
      // The payer's day holds the deposit: the voucher settled out of it, the rest reserved.
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE, reserved: DEPOSIT - PRICE });
      const next = await voucher(channels, identity, budgets, "n-v2");
      expect(next.cumulative).toBe(2n * PRICE);
      expect(next.channel).toMatchObject({ deposited: DEPOSIT, charged: PRICE, signedMax: PRICE, signature: SIGNATURE, state: "open" });
      await channels.settle({
        channelId: identity.channelId,
        lease: next.lease,
        reservationId: "n-v2",
        charged: 2n * PRICE,
        chargedAmount: PRICE,
        signedMax: 2n * PRICE,
        signature: SIGNATURE,
      });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: 2n * PRICE, reserved: DEPOSIT - 2n * PRICE });
      expect(await channels.get(identity.channelId)).toMatchObject({ ...identity, charged: 2n * PRICE, signedMax: 2n * PRICE, state: "open" });
      expect((await channels.ofPayer(identity.payer, 10)).map((channel) => channel.channelId)).toEqual([identity.channelId]);

      // The journal: the deposit and each voucher, as the history lists them.
      expect(await store.journal.get("pay_n1")).toMatchObject({
        status: "delivered",
        amount: PRICE,
        payTo: identity.receiver,
        asset: identity.token,
        service: "Ticks",
        resource: "http://127.0.0.1:4021/tick?symbol=ETH",
        requestKey: "key:n",
        payer: identity.payer,
      });
      expect(await store.journal.get("n-v2")).toMatchObject({ resource: identity.serviceUrl });
      expect(await store.journal.get("pay_nd")).toMatchObject({ status: "confirmed", amount: DEPOSIT, txHash: TX });
      expect(await store.journal.get("n-v2")).toMatchObject({ status: "delivered", amount: PRICE });
      expect((await store.journal.events("n-v2")).map((event) => [event.status, event.details])).toEqual([
        ["signing", expect.objectContaining({ channelId: identity.channelId, kind: "voucher", cumulative: "2000" })],
        ["delivered", expect.objectContaining({ channelId: identity.channelId, kind: "voucher", cumulative: "2000" })],
      ]);
      expect((await store.journal.history({ payer: identity.payer, limit: 10 })).map((payment) => payment.id).sort()).toEqual(["n-v2", "pay_n1", "pay_nd"]);
      const { db } = await given().database.open();
      const schemes = await db.selectFrom("payments").select("scheme").where("payer", "=", identity.payer).execute();
      expect(schemes.map((row) => row.scheme)).toEqual(["batch-settlement", "batch-settlement", "batch-settlement"]);
    });

    it("refuses a deposit larger than the scope's room, and a first price no budget has room for", async () => {
      const { channels } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:small", dailyLimit: 50_000n } };
      const first = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "s-v1", leaseMs: 30_000 });
      expect(first).toMatchObject({ status: "deposit-needed", room: 50_000n });
      if (first.status !== "deposit-needed") throw new Error(first.status);
      expect(await channels.reserveDeposit({ channelId: identity.channelId, lease: first.lease, amount: DEPOSIT, budgets, reservationId: "s-d" })).toEqual({
        status: "refused",
        reason: "scope",
        spent: 0n,
        reserved: 0n,
        dailyLimit: 50_000n,
      });
      await channels.abandon({ channelId: identity.channelId, lease: first.lease, reservationId: "s-v1", spent: "nothing" });
      const poor = { payer: identity.payer, payerLimit: PRICE - 1n };
      expect(await channels.acquire({ identity, price: PRICE, budgets: poor, reservationId: "s-v2", leaseMs: 30_000 })).toEqual({
        status: "refused",
        reason: "daily",
        spent: 0n,
        reserved: 0n,
        dailyLimit: PRICE - 1n,
      });
    });

    it("counts a caller's vouchers in that caller's scope, not in the scope that reserved the deposit, and the payer's day stays the deposit", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const callerA = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:a", dailyLimit: 200_000n } };
      const callerB = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:b", dailyLimit: PRICE } };
      await openChannel(channels, identity, callerA, "ab");
      const ofB = await voucher(channels, identity, callerB, "ab-b1");
      expect(await store.ledger.spentInScope("key:b")).toEqual({ settled: 0n, reserved: PRICE });
      await channels.settle({
        channelId: identity.channelId,
        lease: ofB.lease,
        reservationId: "ab-b1",
        charged: ofB.cumulative,
        chargedAmount: PRICE,
        signedMax: ofB.cumulative,
        signature: SIGNATURE,
      });
      expect(await store.ledger.spentInScope("key:b")).toEqual({ settled: PRICE, reserved: 0n });
      expect(await store.ledger.spentInScope("key:a")).toEqual({ settled: PRICE, reserved: DEPOSIT - 2n * PRICE });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: 2n * PRICE, reserved: DEPOSIT - 2n * PRICE });
      // B's budget is spent: B is refused although the deposit holds plenty; A is not.
      expect(await channels.acquire({ identity, price: PRICE, budgets: callerB, reservationId: "ab-b2", leaseMs: 30_000 })).toEqual({
        status: "refused",
        reason: "scope",
        spent: PRICE,
        reserved: 0n,
        dailyLimit: PRICE,
      });
      expect((await voucher(channels, identity, callerA, "ab-a2")).cumulative).toBe(3n * PRICE);
    });

    it("lets a caller whose budget is the deposit spend it through vouchers, and no further", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:exact", dailyLimit: DEPOSIT } };
      await openChannel(channels, identity, budgets, "e");
      // The deposit's reservation already counts in this caller's budget: a voucher moved out of it does not count twice.
      const second = await voucher(channels, identity, budgets, "e-v2");
      await channels.settle({
        channelId: identity.channelId,
        lease: second.lease,
        reservationId: "e-v2",
        charged: second.cumulative,
        chargedAmount: PRICE,
        signedMax: second.cumulative,
        signature: SIGNATURE,
      });
      expect(await store.ledger.spentInScope("key:exact")).toEqual({ settled: 2n * PRICE, reserved: DEPOSIT - 2n * PRICE });
      // The rest of the deposit, voucher by voucher; then the budget is spent and the next price is refused.
      for (let index = 3n; index * PRICE <= DEPOSIT; index += 1n) {
        const next = await voucher(channels, identity, budgets, `e-v${index}`);
        await channels.settle({
          channelId: identity.channelId,
          lease: next.lease,
          reservationId: `e-v${index}`,
          charged: next.cumulative,
          chargedAmount: PRICE,
          signedMax: next.cumulative,
          signature: SIGNATURE,
        });
      }
      expect(await store.ledger.spentInScope("key:exact")).toEqual({ settled: DEPOSIT, reserved: 0n });
      expect(await channels.acquire({ identity, price: PRICE, budgets, reservationId: "e-last", leaseMs: 30_000 })).toEqual({
        status: "refused",
        reason: "scope",
        spent: DEPOSIT,
        reserved: 0n,
        dailyLimit: DEPOSIT,
      });
    });

    it("returns what a call did not cost to the deposit's reservation, refuses a charge above the price without changing anything, and frees the rest on refund", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      await openChannel(channels, identity, budgets, "c");
      const cheap = await voucher(channels, identity, budgets, "c-v2");
      await channels.settle({
        channelId: identity.channelId,
        lease: cheap.lease,
        reservationId: "c-v2",
        charged: PRICE + 400n,
        chargedAmount: 400n,
        signedMax: cheap.cumulative,
        signature: SIGNATURE,
      });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE + 400n, reserved: DEPOSIT - PRICE - 400n });

      const greedy = await voucher(channels, identity, budgets, "c-v3");
      expect(greedy.cumulative).toBe(2n * PRICE + 400n);
      const before = await store.ledger.spentToday(identity.payer);
      await expect(
        channels.settle({
          channelId: identity.channelId,
          lease: greedy.lease,
          reservationId: "c-v3",
          charged: 3n * PRICE + 401n,
          chargedAmount: PRICE + 1n,
          signedMax: greedy.cumulative,
          signature: SIGNATURE,
        }),
      ).rejects.toThrow(RangeError);
      expect(await store.ledger.spentToday(identity.payer)).toEqual(before);
      expect(await channels.get(identity.channelId)).toMatchObject({ charged: PRICE + 400n });
      expect((await channels.acquire({ identity, price: PRICE, budgets, reservationId: "c-v4", leaseMs: 30_000 })).status).toBe("busy");
      await channels.abandon({ channelId: identity.channelId, lease: greedy.lease, reservationId: "c-v3", spent: "nothing" });

      await channels.refunded({ channelId: identity.channelId, amount: DEPOSIT - PRICE - 400n, txHash: TX });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE + 400n, reserved: 0n });
      expect(await channels.get(identity.channelId)).toMatchObject({ state: "closed" });
      expect(await store.journal.get(`refund:${identity.channelId}:${TX}`)).toMatchObject({ status: "confirmed", amount: DEPOSIT - PRICE - 400n, txHash: TX });
      expect((await channels.acquire({ identity, price: PRICE, budgets, reservationId: "c-v5", leaseMs: 30_000 })).status).toBe("deposit-needed");
    });

    it("takes over an expired lease; abandon 'nothing' frees the call's reservation, 'unknown' keeps it", async () => {
      const { channels, store, database } = given();
      const identity = newIdentity();
      const owner = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:owner", dailyLimit: 1_000_000n } };
      const caller = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:caller", dailyLimit: 1_000_000n } };
      await openChannel(channels, identity, owner, "l");
      const crashed = await voucher(channels, identity, caller, "l-v2");
      const { db } = await database.open();
      await sql`UPDATE payment_channels SET lease_until = db_now_ms() - 1 WHERE channel_id = ${identity.channelId}`.execute(db);
      const taker = await voucher(channels, identity, caller, "l-v3");
      expect(taker.lease).not.toBe(crashed.lease);
      expect(await store.journal.get("l-v2")).toMatchObject({ status: "pending" });
      await expect(
        channels.settle({
          channelId: identity.channelId,
          lease: crashed.lease,
          reservationId: "l-v2",
          charged: 2n * PRICE,
          chargedAmount: PRICE,
          signedMax: 2n * PRICE,
          signature: SIGNATURE,
        }),
      ).rejects.toThrow(ChannelLeaseLostError);
      expect(await store.ledger.spentInScope("key:caller")).toEqual({ settled: 0n, reserved: 2n * PRICE });

      await channels.abandon({ channelId: identity.channelId, lease: taker.lease, reservationId: "l-v3", spent: "nothing" });
      expect(await store.ledger.spentInScope("key:caller")).toEqual({ settled: 0n, reserved: PRICE });
      expect(await store.ledger.spentInScope("key:owner")).toEqual({ settled: PRICE, reserved: DEPOSIT - 2n * PRICE });
      expect(await store.journal.get("l-v3")).toMatchObject({ status: "failed" });

      const unknown = await voucher(channels, identity, caller, "l-v4");
      await channels.abandon({ channelId: identity.channelId, lease: unknown.lease, reservationId: "l-v4", spent: "unknown" });
      expect(await store.ledger.spentInScope("key:caller")).toEqual({ settled: 0n, reserved: 2n * PRICE });
      expect(await store.journal.get("l-v4")).toMatchObject({ status: "pending" });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE, reserved: DEPOSIT - PRICE });
      // The lease is free again either way.
      expect((await voucher(channels, identity, caller, "l-v5")).cumulative).toBe(2n * PRICE);
    });

    it("decides a call lost with its lease at the next settle: not counted by the server, its price is freed and its row failed; counted, it is committed and confirmed", async () => {
      const { channels, store, database } = given();
      const { db } = await database.open();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:lost", dailyLimit: 1_000_000n } };
      await openChannel(channels, identity, budgets, "x");
      const expire = () => sql`UPDATE payment_channels SET lease_until = db_now_ms() - 1 WHERE channel_id = ${identity.channelId}`.execute(db);
      const settleAt = (lease: string, reservationId: string, charged: bigint) =>
        channels.settle({ channelId: identity.channelId, lease, reservationId, charged, chargedAmount: PRICE, signedMax: charged, signature: SIGNATURE });

      // 1. The lost voucher never reached the server: the next one, signed on the same charge, is accepted.
      const lost = await voucher(channels, identity, budgets, "x-v2");
      await expire();
      const next = await voucher(channels, identity, budgets, "x-v3");
      expect(next.cumulative).toBe(lost.cumulative);
      expect(await store.journal.get("x-v2")).toMatchObject({ status: "pending" });
      expect(await store.ledger.spentInScope("key:lost")).toEqual({ settled: PRICE, reserved: DEPOSIT - PRICE });
      await settleAt(next.lease, "x-v3", 2n * PRICE);
      expect(await store.journal.get("x-v2")).toMatchObject({ status: "failed" });
      expect(await store.ledger.spentInScope("key:lost")).toEqual({ settled: 2n * PRICE, reserved: DEPOSIT - 2n * PRICE });

      // 2. The server took the lost voucher, charging half its price: the next call meets its
      //    corrective 402, resyncs, and settles above it.
      const taken = await voucher(channels, identity, budgets, "x-v4");
      await expire();
      const after = await voucher(channels, identity, budgets, "x-v5");
      const serverCharged = taken.cumulative - PRICE / 2n;
      await channels.resync({
        channelId: identity.channelId,
        lease: after.lease,
        channel: { deposited: DEPOSIT, charged: serverCharged, signedMax: taken.cumulative, signature: SIGNATURE, totalClaimed: 0n },
      });
      await settleAt(after.lease, "x-v5", serverCharged + PRICE);
      expect(await store.journal.get("x-v4")).toMatchObject({ status: "confirmed", amount: PRICE / 2n });
      expect(await store.journal.get("x-v5")).toMatchObject({ status: "delivered", amount: PRICE });
      // What the server counted is what the budgets settled; the deposit holds the rest.
      const counted = 3n * PRICE + PRICE / 2n;
      expect(await store.ledger.spentInScope("key:lost")).toEqual({ settled: counted, reserved: DEPOSIT - counted });
      expect(await channels.get(identity.channelId)).toMatchObject({ charged: counted });

      // 3. A call whose answer was lost on the way (abandoned "unknown") is decided the same way.
      const unknown = await voucher(channels, identity, budgets, "x-v6");
      await channels.abandon({ channelId: identity.channelId, lease: unknown.lease, reservationId: "x-v6", spent: "unknown" });
      expect(await store.journal.get("x-v6")).toMatchObject({ status: "pending" });
      const retried = await voucher(channels, identity, budgets, "x-v7");
      await settleAt(retried.lease, "x-v7", retried.cumulative);
      expect(await store.journal.get("x-v6")).toMatchObject({ status: "failed" });
      expect(await store.ledger.spentInScope("key:lost")).toEqual({ settled: counted + PRICE, reserved: DEPOSIT - counted - PRICE });
    });

    it("abandon 'unused' (an early turn given back) frees the reservation and removes the row no one saw; a row the tracker moved on stays", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n, scope: { key: "key:unused", dailyLimit: 1_000_000n } };
      await openChannel(channels, identity, budgets, "u");
      const before = await store.ledger.spentInScope("key:unused");

      const unused = await voucher(channels, identity, budgets, "u-v2");
      expect(await store.journal.get("u-v2")).toMatchObject({ status: "signing" });
      await channels.abandon({ channelId: identity.channelId, lease: unused.lease, reservationId: "u-v2", spent: "unused" });
      expect(await store.journal.get("u-v2")).toBeUndefined();
      expect(await store.journal.events("u-v2")).toEqual([]);
      expect(await store.ledger.spentInScope("key:unused")).toEqual(before);

      // The purchase failed in words under the turn's id before it gave the turn back: that row is the stream's.
      const refused = await voucher(channels, identity, budgets, "u-v3");
      await store.journal.record({ id: "u-v3", status: "failed", payer: identity.payer, payerKind: "agent", reason: "limit-exceeded", at: Date.now() });
      await channels.abandon({ channelId: identity.channelId, lease: refused.lease, reservationId: "u-v3", spent: "unused" });
      expect(await store.journal.get("u-v3")).toMatchObject({ status: "failed", reason: "limit-exceeded" });
      expect((await store.journal.events("u-v3")).map((event) => event.status)).toEqual(["signing", "failed"]);
      expect(await store.ledger.spentInScope("key:unused")).toEqual(before);
      // The voucher after them signs on the charge as if neither call had happened.
      expect((await voucher(channels, identity, budgets, "u-v4")).cumulative).toBe(2n * PRICE);
    });

    it("frees an unconfirmed deposit's reservation when the first call spent nothing", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      const first = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "f-v1", leaseMs: 30_000 });
      if (first.status !== "deposit-needed") throw new Error(first.status);
      await channels.reserveDeposit({ channelId: identity.channelId, lease: first.lease, amount: DEPOSIT, budgets, reservationId: "f-d" });
      await channels.abandon({ channelId: identity.channelId, lease: first.lease, reservationId: "f-v1", depositReservationId: "f-d", spent: "nothing" });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: 0n, reserved: 0n });
      expect(await store.journal.get("f-d")).toMatchObject({ status: "failed" });
    });

    it("adopts the server's proven state on resync, confirming a deposit it shows, and settles the retried voucher from there", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      const first = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "r-v1", leaseMs: 30_000 });
      if (first.status !== "deposit-needed") throw new Error(first.status);
      await channels.reserveDeposit({ channelId: identity.channelId, lease: first.lease, amount: DEPOSIT, budgets, reservationId: "r-d" });
      // The answer was lost; the server's corrective 402 proves the deposit and a charge we never heard of.
      await channels.resync({
        channelId: identity.channelId,
        lease: first.lease,
        channel: { deposited: DEPOSIT, charged: 3n * PRICE, signedMax: 3n * PRICE, signature: SIGNATURE, totalClaimed: PRICE },
      });
      expect(await channels.get(identity.channelId)).toMatchObject({
        state: "open",
        deposited: DEPOSIT,
        charged: 3n * PRICE,
        signedMax: 3n * PRICE,
        totalClaimed: PRICE,
      });
      await channels.settle({
        channelId: identity.channelId,
        lease: first.lease,
        reservationId: "r-v1",
        charged: 4n * PRICE,
        chargedAmount: PRICE,
        signedMax: 4n * PRICE,
        signature: SIGNATURE,
      });
      // The deposit's reservation was confirmed by the resync: it holds the deposit less the voucher.
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE, reserved: DEPOSIT - PRICE });
      expect((await voucher(channels, identity, budgets, "r-v2")).cumulative).toBe(5n * PRICE);
      await expect(
        channels.resync({ channelId: identity.channelId, lease: first.lease, channel: { deposited: DEPOSIT, charged: 0n, signedMax: 0n, totalClaimed: 0n } }),
      ).rejects.toThrow(ChannelLeaseLostError);
    });

    it("lists an unused open channel as idle after idleMs, and not while a call holds it", async () => {
      const { channels } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      await openChannel(channels, identity, budgets, "i");
      const ids = async (idleMs: number) => (await channels.idle(idleMs, 1_000)).map((channel) => channel.channelId);
      expect(await ids(3_600_000)).not.toContain(identity.channelId);
      expect(await ids(0)).toContain(identity.channelId);
      await voucher(channels, identity, budgets, "i-v2");
      expect(await ids(0)).not.toContain(identity.channelId);
    });

    it("claims an idle channel for its refund: its calls wait, no second claim, a failed refund opens it, a stale claim is taken again", async () => {
      const { channels } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      await openChannel(channels, identity, budgets, "refund-claim");
      const claimed = async (refundMs: number) => (await channels.claimForRefund(0, 1_000, refundMs)).map((channel) => channel.channelId);
      expect(await claimed(60_000)).toContain(identity.channelId);
      expect((await channels.get(identity.channelId))?.state).toBe("refunding");
      // Another instance's run, and a call, while the refund is under way.
      expect(await claimed(60_000)).not.toContain(identity.channelId);
      expect((await channels.acquire({ identity, price: PRICE, budgets, reservationId: "refund-claim-busy", leaseMs: 30_000 })).status).toBe("busy");
      // The refund did not happen: calls go on.
      await channels.refundFailed(identity.channelId);
      expect((await channels.get(identity.channelId))?.state).toBe("open");
      const next = await voucher(channels, identity, budgets, "refund-claim-v2");
      await channels.abandon({ channelId: identity.channelId, lease: next.lease, reservationId: "refund-claim-v2", spent: "nothing" });
      // A claim whose refunder died (its time is up at once here) is taken again by the next run.
      expect(await claimed(1)).toContain(identity.channelId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await claimed(60_000)).toContain(identity.channelId);
    });

    it("counts refunds failed in a row; after N the payer withdraws alone: calls wait, no refund, one claim per step, and the finalize's refund closes the channel and frees its reservation", async () => {
      const { channels, store } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      await openChannel(channels, identity, budgets, "withdraw");
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE, reserved: DEPOSIT - PRICE });
      const ids = (rows: { channelId: string }[]) => rows.map((row) => row.channelId);
      const takeForWithdrawal = async (claimMs = 60_000) => ids(await channels.claimForWithdrawal(3, 1_000, claimMs));
      for (const count of [1, 2, 3]) {
        // Not yet enough failures: no withdrawal.
        expect(await takeForWithdrawal()).not.toContain(identity.channelId);
        expect(ids(await channels.claimForRefund(0, 1_000, 60_000))).toContain(identity.channelId);
        expect(await channels.refundRefused(identity.channelId)).toBe(count);
      }
      // refundRefused counts only a claimed refund.
      expect(await channels.refundRefused(identity.channelId)).toBe(0);
      expect(await channels.get(identity.channelId)).toMatchObject({ state: "open", refundFailures: 3 });

      expect(await takeForWithdrawal()).toContain(identity.channelId);
      expect(await takeForWithdrawal(), "another instance's run").not.toContain(identity.channelId);
      expect((await channels.get(identity.channelId))?.state).toBe("withdrawing");
      expect(await channels.acquire({ identity, price: PRICE, budgets, reservationId: "withdraw-busy", leaseMs: 30_000 })).toEqual({
        status: "busy",
        retryInMs: BUSY_POLL_MS,
        withdrawing: true,
      });
      expect(ids(await channels.claimForRefund(0, 1_000, 60_000))).not.toContain(identity.channelId);
      expect(ids(await channels.idle(0, 1_000))).not.toContain(identity.channelId);

      const initiated = `0x${"c1".repeat(32)}` as const;
      await channels.withdrawalStarted({ channelId: identity.channelId, amount: DEPOSIT - PRICE, readyAt: 1_000n, txHash: initiated });
      expect(await channels.get(identity.channelId)).toMatchObject({ state: "withdrawing", withdrawReadyAt: 1_000n, withdrawTx: initiated });
      expect(await store.journal.get(`withdraw:${identity.channelId}:${initiated}`)).toMatchObject({ status: "confirmed", amount: DEPOSIT - PRICE });
      expect(await takeForWithdrawal(1), "an initiated withdrawal is not initiated again").not.toContain(identity.channelId);
      expect((await channels.acquire({ identity, price: PRICE, budgets, reservationId: "withdraw-busy-2", leaseMs: 30_000 })).status).toBe("busy");

      // Due on the chain's clock, not a second before; of two claims, one wins.
      expect(ids(await channels.claimDueWithdrawals(999n, 1_000, 60_000))).not.toContain(identity.channelId);
      const both = await Promise.all([channels.claimDueWithdrawals(1_000n, 1_000, 60_000), channels.claimDueWithdrawals(1_000n, 1_000, 60_000)]);
      expect(both.filter((rows) => ids(rows).includes(identity.channelId))).toHaveLength(1);
      // The chain refused the finalize (too early): released, the next run takes it again.
      await channels.withdrawalReleased(identity.channelId);
      expect((await channels.get(identity.channelId))?.state).toBe("withdrawing");
      expect(ids(await channels.claimDueWithdrawals(1_000n, 1_000, 60_000))).toContain(identity.channelId);

      const finalized = `0x${"f1".repeat(32)}` as const;
      await channels.refunded({ channelId: identity.channelId, amount: DEPOSIT - PRICE - 100n, txHash: finalized });
      expect(await channels.get(identity.channelId)).toMatchObject({ state: "closed", refundFailures: 0 });
      expect(await store.ledger.spentToday(identity.payer)).toEqual({ settled: PRICE, reserved: 0n });
      expect(await store.journal.get(`refund:${identity.channelId}:${finalized}`)).toMatchObject({ status: "confirmed", amount: DEPOSIT - PRICE - 100n });
      // Closed, the channel holds no lease: a call may open it again with a deposit.
      const again = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "withdraw-again", leaseMs: 30_000 });
      expect(again.status).toBe("deposit-needed");
      if (again.status === "deposit-needed") {
        await channels.abandon({ channelId: identity.channelId, lease: again.lease, reservationId: "withdraw-again", spent: "nothing" });
      }
    });

    it("takes an initiation again when its claim expired unrecorded, and a released initiation opens the channel for its calls", async () => {
      const { channels } = given();
      const identity = newIdentity();
      const budgets = { payer: identity.payer, payerLimit: 1_000_000n };
      await openChannel(channels, identity, budgets, "withdraw-stale");
      await channels.claimForRefund(0, 1_000, 60_000);
      await channels.refundRefused(identity.channelId);
      const taken = async (claimMs: number) => (await channels.claimForWithdrawal(1, 1_000, claimMs)).map((row) => row.channelId);
      expect(await taken(1)).toContain(identity.channelId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await taken(60_000)).toContain(identity.channelId);
      await channels.withdrawalReleased(identity.channelId);
      expect((await channels.get(identity.channelId))?.state).toBe("open");
      const next = await voucher(channels, identity, budgets, "withdraw-stale-v2");
      await channels.abandon({ channelId: identity.channelId, lease: next.lease, reservationId: "withdraw-stale-v2", spent: "nothing" });
    });

    it("journals a receiver's payout once per channel it covers, with that channel's claims made before it in the chain's order", async () => {
      const { channels, store } = given();
      const a = newIdentity();
      // Two channels of one payer to one receiver in one token, and a third to another receiver.
      const b = { ...newIdentity(), payer: a.payer, receiver: a.receiver, token: a.token };
      const c = { ...newIdentity(), payer: a.payer, token: a.token };
      const budgets = { payer: a.payer, payerLimit: 1_000_000n };
      for (const [identity, prefix] of [
        [a, "payout-a"],
        [b, "payout-b"],
        [c, "payout-c"],
      ] as const)
        await openChannel(channels, identity, budgets, prefix);
      const [claimA1, claimB, claimC, claimA2, payout1, payout2] = Array.from({ length: 6 }, () => hex(32));
      const at = (blockNumber: bigint, logIndex: number) => ({ blockNumber, logIndex });
      expect(
        await channels.recordClaims(a.channelId, [
          { txHash: claimA1!, ...at(10n, 0), claimed: 3_000n, totalClaimed: 3_000n },
          { txHash: claimA2!, ...at(12n, 1), claimed: 4_000n, totalClaimed: 7_000n },
        ]),
      ).toBe(2);
      expect(await channels.recordClaims(b.channelId, [{ txHash: claimB!, ...at(10n, 1), claimed: 2_000n, totalClaimed: 2_000n }])).toBe(1);
      expect(await channels.recordClaims(c.channelId, [{ txHash: claimC!, ...at(10n, 2), claimed: 1_000n, totalClaimed: 1_000n }])).toBe(1);
      // Both receivers wait, each from its oldest unpaid claim.
      const byReceiver = <Row extends { receiver: string }>(rows: Row[]) => [...rows].sort((left, right) => left.receiver.localeCompare(right.receiver));
      expect(byReceiver(await channels.unpaidClaims(a.payer, 10))).toEqual(
        byReceiver([
          { receiver: a.receiver, token: a.token, fromBlock: 10n },
          { receiver: c.receiver, token: c.token, fromBlock: 10n },
        ]),
      );

      // The first payout comes after A's first claim and B's claim, before A's second.
      const receiver = { receiver: a.receiver, token: a.token };
      expect(await channels.recordPayout({ ...receiver, payout: { txHash: payout1!, ...at(11n, 0), amount: 5_000n } })).toBe(2);
      expect(await channels.recordPayout({ ...receiver, payout: { txHash: payout1!, ...at(11n, 0), amount: 5_000n } })).toBe(0);
      expect(await store.journal.get(`settle:${a.channelId}:${payout1}`)).toMatchObject({
        status: "confirmed",
        amount: 3_000n,
        txHash: payout1,
        scheme: "batch-settlement",
        message: expect.stringMatching(/^The service was paid out/),
      });
      expect(await store.journal.get(`settle:${b.channelId}:${payout1}`)).toMatchObject({ status: "confirmed", amount: 2_000n, txHash: payout1 });
      expect(await store.journal.get(`settle:${c.channelId}:${payout1}`)).toBeUndefined();
      // The receiver that claimed most recently (block 12) comes first.
      expect(await channels.unpaidClaims(a.payer, 10)).toEqual([
        { ...receiver, fromBlock: 12n },
        { receiver: c.receiver, token: c.token, fromBlock: 10n },
      ]);

      // A payout in the same block as a claim covers it only when it comes after it.
      expect(await channels.recordPayout({ ...receiver, payout: { txHash: hex(32), ...at(12n, 0), amount: 1_000n } })).toBe(0);
      expect(await channels.recordPayout({ ...receiver, payout: { txHash: payout2!, ...at(12n, 2), amount: 4_000n } })).toBe(1);
      expect(await store.journal.get(`settle:${a.channelId}:${payout2}`)).toMatchObject({ status: "confirmed", amount: 4_000n, txHash: payout2 });
      // The other receiver's claim is no part of this receiver's payouts.
      expect(await channels.unpaidClaims(a.payer, 10)).toEqual([{ receiver: c.receiver, token: c.token, fromBlock: 10n }]);

      // A claim recorded late (its read failed before) that the first payout covered joins that
      // payout's row of its channel: the row then holds both claims.
      const lateClaim = hex(32);
      expect(await channels.recordClaims(b.channelId, [{ txHash: lateClaim, ...at(10n, 3), claimed: 500n, totalClaimed: 2_500n }])).toBe(1);
      expect(await channels.recordPayout({ ...receiver, payout: { txHash: payout1!, ...at(11n, 0), amount: 5_000n } })).toBe(1);
      expect(await store.journal.get(`settle:${b.channelId}:${payout1}`)).toMatchObject({ status: "confirmed", amount: 2_500n, txHash: payout1 });
      expect(await store.journal.get(`settle:${a.channelId}:${payout1}`)).toMatchObject({ amount: 3_000n });
    });
  });
}

describeChannelLedger("PGlite", async () => lazyDatabase({ kind: "pglite" }));

// Skipped only on explicit request, as in lib/store/database-store.test.ts.
describe.skipIf(skipPostgresTests)("PostgreSQL", () => {
  let server: PostgresServerHandle | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const url = async () => {
    if (!server) throw new Error("postgres did not start (see the beforeAll error)");
    return server.database();
  };

  describeChannelLedger("PostgreSQL", async () => lazyDatabase({ kind: "postgres", url: await url() }));

  it("serializes 50 concurrent calls from two instances on one channel: exactly K vouchers under a scope of K prices, cumulative amounts without gap or repeat", async () => {
    const K = 20;
    const address = await url();
    // Two instances: two pools on one database.
    const databases = [lazyDatabase({ kind: "postgres", url: address }), lazyDatabase({ kind: "postgres", url: address })];
    try {
      const stores = [createDatabaseStore(databases[0]!), createDatabaseStore(databases[1]!)];
      await stores[0]!.ping();
      await stores[1]!.ping();
      const ledgers = stores.map((store) => store.channels!);
      const identity = newIdentity();
      await openChannel(ledgers[0]!, identity, { payer: identity.payer, payerLimit: 10_000_000n, scope: { key: "key:opener", dailyLimit: 1_000_000n } }, "k");
      const budgets = { payer: identity.payer, payerLimit: 10_000_000n, scope: { key: "key:concurrent", dailyLimit: BigInt(K) * PRICE } };
      const call = async (index: number): Promise<bigint | undefined> => {
        const channels = ledgers[index % 2]!;
        for (;;) {
          const result = await channels.acquire({ identity, price: PRICE, budgets, reservationId: `k-${index}`, leaseMs: 30_000 });
          if (result.status === "busy") {
            await new Promise((resolve) => setTimeout(resolve, result.retryInMs));
            continue;
          }
          if (result.status === "refused") return undefined;
          if (result.status !== "voucher") throw new Error(`unexpected ${result.status}`);
          await channels.settle({
            channelId: identity.channelId,
            lease: result.lease,
            reservationId: `k-${index}`,
            charged: result.cumulative,
            chargedAmount: PRICE,
            signedMax: result.cumulative,
            signature: SIGNATURE,
          });
          return result.cumulative;
        }
      };
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, index) => call(index)));
      const settled = outcomes.filter((outcome): outcome is bigint => outcome !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      // The opening call was the channel's first voucher (PRICE); the K after it follow without gap or repeat.
      expect(settled).toEqual(Array.from({ length: K }, (_, index) => BigInt(index + 2) * PRICE));
      expect(await stores[1]!.ledger.spentInScope("key:concurrent")).toEqual({ settled: BigInt(K) * PRICE, reserved: 0n });
      expect(await ledgers[1]!.get(identity.channelId)).toMatchObject({ charged: BigInt(K + 1) * PRICE, signedMax: BigInt(K + 1) * PRICE });
      expect(await stores[0]!.ledger.spentToday(identity.payer)).toEqual({ settled: BigInt(K + 1) * PRICE, reserved: DEPOSIT - BigInt(K + 1) * PRICE });
    } finally {
      await Promise.all(databases.map((database) => database.close()));
    }
  });
});
