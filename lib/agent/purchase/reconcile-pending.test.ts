/**
 * Every branch of the reconciler against a fake chain and clock: used (with and without a
 * findable transaction), expired unused, still open, an unreachable chain, and two runs at
 * once. The ledger ends consistent with the chain in each.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { FakeChain, FakeClock } from "../../../tests/support/fake-chain";
import { createMemoryStore } from "../../store/create-memory-store";
import type { PendingPayment } from "../../store/pending-payment";
import type { Store } from "../../store/store-types";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { reconcilePendingPayments } from "./reconcile-pending";

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const PRICE = 15_000n;
let clock: FakeClock;
let chain: FakeChain;
let store: Store;
let validBefore: number;

function payment(nonceSeed: number): PendingPayment {
  return {
    id: `pay_${nonceSeed}`,
    payer: PAYER,
    nonce: `0x${nonceSeed.toString(16).padStart(64, "0")}`,
    validBefore,
    amount: PRICE.toString(),
    service: "Paid data",
    resource: "https://paid.example/data",
    recordedAt: clock.now(),
  };
}

async function handOver(nonceSeed: number): Promise<PendingPayment> {
  const entry = payment(nonceSeed);
  expect(await store.ledger.reserve({ payer: PAYER, reservationId: entry.nonce, amount: PRICE, dailyLimit: 1_000_000n })).toEqual({ ok: true });
  await store.pendingPayments.add(entry);
  return entry;
}

const run = () => reconcilePendingPayments({ chain, ledger: store.ledger, pendingPayments: store.pendingPayments, now: clock.now, log: () => {} });
const afterExpiry = () => clock.advance((validBefore + EXPIRY_MARGIN_SECONDS + 1) * 1000 - clock.now());

beforeEach(() => {
  clock = new FakeClock();
  chain = new FakeChain();
  store = createMemoryStore();
  validBefore = Math.floor(clock.now() / 1000) + 300;
});

describe("reconcilePendingPayments", () => {
  it("keeps an authorization that may still be used, and its reservation", async () => {
    await handOver(1);
    expect(await run()).toEqual({ checked: 1, settled: 0, released: 0, stillPending: 1, failed: 0 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: PRICE });
  });

  it("commits a used authorization with its transaction and forgets it", async () => {
    const entry = await handOver(2);
    const txHash = chain.settle(entry.nonce);
    expect(await run()).toMatchObject({ settled: 1, stillPending: 0 });
    expect((await store.ledger.entries(PAYER)).map((item) => [item.amount, item.txHash])).toEqual([[PRICE, txHash]]);
    expect(await store.pendingPayments.list()).toEqual([]);
  });

  it("waits for the transaction of a used authorization while it is young, and commits it anyway once expired", async () => {
    const entry = await handOver(3);
    chain.used.set(entry.nonce, undefined as never); // used, but its transaction is out of reach
    chain.findAuthorizationTransaction = async () => undefined;
    expect(await run()).toMatchObject({ stillPending: 1 });
    afterExpiry();
    expect(await run()).toMatchObject({ settled: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: PRICE, reserved: 0n });
  });

  it("releases an authorization proven expired and unused", async () => {
    await handOver(4);
    afterExpiry();
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: 0n });
    expect(await store.pendingPayments.list()).toEqual([]);
  });

  it("does not release just because the clock passed validBefore without the margin", async () => {
    await handOver(5);
    clock.advance((validBefore + 1) * 1000 - clock.now());
    expect(await run()).toMatchObject({ stillPending: 1, released: 0 });
  });

  it("keeps everything while the chain cannot be read, even past expiry", async () => {
    await handOver(6);
    afterExpiry();
    chain.unreachable = true;
    expect(await run()).toMatchObject({ stillPending: 1, released: 0 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: PRICE });
  });

  it("two runs at once count a settlement once", async () => {
    const entry = await handOver(7);
    chain.settle(entry.nonce);
    await Promise.all([run(), run(), run()]);
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: PRICE, reserved: 0n });
    expect(await store.ledger.entries(PAYER)).toHaveLength(1);
  });

  it("a failed ledger write leaves the payment for the next run", async () => {
    const entry = await handOver(8);
    chain.settle(entry.nonce);
    const commit = store.ledger.commit.bind(store.ledger);
    store.ledger.commit = async () => {
      throw new Error("store down");
    };
    expect(await run()).toMatchObject({ failed: 1 });
    expect(await store.pendingPayments.list()).toHaveLength(1);
    store.ledger.commit = commit;
    expect(await run()).toMatchObject({ settled: 1 });
  });
});
