/**
 * Every branch of the reconciler against a fake chain and clock, working from the journal:
 * used (with and without a findable transaction), expired unused, still open, in a live
 * request's hands, left behind by a process that died, an unreachable chain, a failing ledger,
 * and runs at once. The ledger and the journal end consistent with the chain in each.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { FakeChain, FakeClock } from "../../../tests/support/fake-chain";
import { createMemoryStore } from "../../store/create-memory-store";
import type { Store } from "../../store/store-types";
import type { PaymentStatus } from "../../stream";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { reconcilePendingPayments } from "./reconcile-pending";

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const PRICE = 15_000n;
let clock: FakeClock;
let chain: FakeChain;
let store: Store;
let validBefore: number;

/** A payment reserved and journaled up to `status`, as a request (or a crash) would leave it. */
async function leftAt(seed: number, status: PaymentStatus): Promise<{ id: string; nonce: string }> {
  const nonce = `0x${seed.toString(16).padStart(64, "0")}`;
  const id = `pay_${seed}`;
  expect(await store.ledger.reserve({ payer: PAYER, reservationId: nonce, amount: PRICE, dailyLimit: 1_000_000n })).toEqual({ ok: true });
  await store.journal.record({
    id,
    status: "quoted",
    at: clock.now(),
    payer: PAYER,
    payerKind: "agent",
    nonce,
    validBefore: BigInt(validBefore),
    amount: PRICE,
    service: "Paid data",
  });
  if (status !== "quoted") await store.journal.record({ id, status, at: clock.now() });
  return { id, nonce };
}

const run = () => reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} });
const afterExpiry = () => clock.advance((validBefore + EXPIRY_MARGIN_SECONDS + 1) * 1000 - clock.now());

beforeEach(() => {
  clock = new FakeClock();
  chain = new FakeChain();
  store = createMemoryStore();
  validBefore = Math.floor(clock.now() / 1000) + 300;
});

describe("reconcilePendingPayments", () => {
  it("keeps a pending authorization that may still be used, and its reservation", async () => {
    await leftAt(1, "pending");
    expect(await run()).toEqual({ checked: 1, settled: 0, released: 0, stillPending: 1, inFlight: 0, failed: 0 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: PRICE });
  });

  it("commits a used authorization with its transaction, and the journal says confirmed", async () => {
    const { id, nonce } = await leftAt(2, "pending");
    const txHash = chain.settle(nonce);
    expect(await run()).toMatchObject({ settled: 1, stillPending: 0 });
    expect((await store.ledger.entries(PAYER)).map((item) => [item.amount, item.txHash])).toEqual([[PRICE, txHash]]);
    expect(await store.journal.get(id)).toMatchObject({ status: "confirmed", txHash });
    expect((await store.journal.events(id)).map((event) => event.status)).toEqual(["quoted", "pending", "confirmed"]);
    expect(await store.journal.unsettled(10)).toEqual([]);
  });

  it("waits for the transaction of a used authorization while it is young, and commits it anyway once expired", async () => {
    const { nonce } = await leftAt(3, "pending");
    chain.used.set(nonce, undefined as never); // used, but its transaction is out of reach
    chain.findAuthorizationTransaction = async () => undefined;
    expect(await run()).toMatchObject({ stillPending: 1 });
    afterExpiry();
    expect(await run()).toMatchObject({ settled: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: PRICE, reserved: 0n });
  });

  it("releases an authorization proven expired and unused, and the journal says failed", async () => {
    const { id } = await leftAt(4, "pending");
    afterExpiry();
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: 0n });
    expect(await store.journal.get(id)).toMatchObject({ status: "failed", message: expect.stringMatching(/expired unused/) });
  });

  it("judges expiry by the chain's clock: a fast instance clock does not release what the chain would still accept", async () => {
    const { id, nonce } = await leftAt(40, "pending");
    // This instance's clock is past the expiry; the chain's latest block is not.
    afterExpiry();
    chain.blockTimeMs = validBefore * 1000 - 60_000;
    expect(await run()).toMatchObject({ released: 0, stillPending: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: PRICE });
    // The chain, still before validBefore, lets the authorization through: it is counted, once.
    const txHash = chain.settle(nonce);
    expect(await run()).toMatchObject({ settled: 1 });
    expect(await store.journal.get(id)).toMatchObject({ status: "confirmed", txHash });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: PRICE, reserved: 0n });
  });

  it("releases once the chain's own clock has passed the expiry", async () => {
    const { id } = await leftAt(41, "pending");
    afterExpiry();
    chain.blockTimeMs = (validBefore + EXPIRY_MARGIN_SECONDS + 1) * 1000;
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.journal.get(id)).toMatchObject({ status: "failed" });
  });

  it("leaves a payment a live request may still own (signing, sending) until its authorization is dead", async () => {
    const { id } = await leftAt(5, "verifying");
    expect(await run()).toMatchObject({ inFlight: 1, released: 0 });
    // The process died mid-payment: once the authorization expired, the reconciler owns it.
    afterExpiry();
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.journal.get(id)).toMatchObject({ status: "failed" });
  });

  it("closes a quote that was never paid as expired", async () => {
    const { id } = await leftAt(6, "awaiting-approval");
    afterExpiry();
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.journal.get(id)).toMatchObject({ status: "failed", message: expect.stringMatching(/quote expired/) });
  });

  it("does not release just because the clock passed validBefore without the margin", async () => {
    await leftAt(7, "pending");
    clock.advance((validBefore + 1) * 1000 - clock.now());
    expect(await run()).toMatchObject({ stillPending: 1, released: 0 });
  });

  it("keeps everything while the chain cannot be read, even past expiry", async () => {
    await leftAt(8, "pending");
    afterExpiry();
    chain.unreachable = true;
    expect(await run()).toMatchObject({ stillPending: 1, released: 0 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: PRICE });
  });

  it("runs at once count a settlement once", async () => {
    const { nonce } = await leftAt(9, "pending");
    chain.settle(nonce);
    await Promise.all([run(), run(), run()]);
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: PRICE, reserved: 0n });
    expect(await store.ledger.entries(PAYER)).toHaveLength(1);
  });

  it("a failed ledger write leaves the payment for the next run", async () => {
    const { nonce } = await leftAt(10, "pending");
    chain.settle(nonce);
    const commit = store.ledger.commit.bind(store.ledger);
    store.ledger.commit = async () => {
      throw new Error("store down");
    };
    expect(await run()).toMatchObject({ failed: 1 });
    expect(await store.journal.unsettled(10)).toHaveLength(1);
    store.ledger.commit = commit;
    expect(await run()).toMatchObject({ settled: 1 });
  });
});
