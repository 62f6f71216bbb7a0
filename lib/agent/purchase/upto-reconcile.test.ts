/**
 * Metered (`upto`) payments left undecided, and the guard's judgement of a settlement: the
 * reconciler asks Permit2's nonce bitmap, commits what the settling transaction moved (the rest
 * of the ceiling freed), releases a permit that expired unused, and never confuses a permit with
 * an EIP-3009 authorization of the same nonce.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { FakeChain, FakeClock } from "../../../tests/support/fake-chain";
import { createMemoryStore } from "../../store/create-memory-store";
import type { Store } from "../../store/store-types";
import { permit2NonceOf } from "../../x402/upto-permit2";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { readAuthorizationOutcome } from "./authorization-outcome";
import { reconcilePendingPayments } from "./reconcile-pending";
import { reviewSettlement } from "./upto-settlement";

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const PAY_TO = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const CEILING = 50_000n;
let clock: FakeClock;
let chain: FakeChain;
let store: Store;
let deadline: number;

async function pendingUpto(seed: number): Promise<{ id: string; nonce: `0x${string}` }> {
  const nonce = `0x${seed.toString(16).padStart(64, "0")}` as const;
  const id = `pay_${seed}`;
  expect(await store.ledger.reserve({ payer: PAYER, reservationId: nonce, amount: CEILING, dailyLimit: 1_000_000n })).toEqual({ ok: true });
  await store.journal.record({
    id,
    status: "quoted",
    at: clock.now(),
    payer: PAYER,
    payerKind: "agent",
    nonce,
    validBefore: BigInt(deadline),
    amount: CEILING,
    scheme: "upto",
    ceiling: CEILING,
    payTo: PAY_TO,
  });
  await store.journal.record({ id, status: "pending", at: clock.now() });
  return { id, nonce };
}

const run = () => reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} });

beforeEach(() => {
  clock = new FakeClock();
  chain = new FakeChain();
  store = createMemoryStore();
  deadline = Math.floor(clock.now() / 1000) + 300;
});

describe("reconciling upto permits", () => {
  it("commits the amount the settling transaction moved, frees the rest, and the journal says so", async () => {
    const { id, nonce } = await pendingUpto(1);
    expect(await run()).toMatchObject({ stillPending: 1 });
    const txHash = chain.settlePermit(permit2NonceOf(nonce), 12_000n);
    expect(await run()).toMatchObject({ settled: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 12_000n, reserved: 0n });
    expect(await store.journal.get(id)).toMatchObject({ status: "confirmed", txHash, amount: 12_000n, ceiling: CEILING, scheme: "upto" });
  });

  it("releases a permit whose deadline passed with its Permit2 nonce unused, whatever EIP-3009 says of the same nonce", async () => {
    const { id, nonce } = await pendingUpto(2);
    // An EIP-3009 authorization of the same bytes is not this permit.
    chain.settle(nonce);
    clock.advance((deadline + EXPIRY_MARGIN_SECONDS + 1) * 1000 - clock.now());
    expect(await run()).toMatchObject({ released: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: 0n });
    expect(await store.journal.get(id)).toMatchObject({ status: "failed" });
  });

  it("counts the whole ceiling for a used permit whose transaction cannot be found once it expired", async () => {
    const { nonce } = await pendingUpto(3);
    chain.settlePermit(permit2NonceOf(nonce), 1n);
    chain.findPermitSettlement = async () => undefined;
    expect(await run()).toMatchObject({ stillPending: 1 });
    clock.advance((deadline + 1) * 1000 - clock.now());
    expect(await run()).toMatchObject({ settled: 1 });
    expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: CEILING, reserved: 0n });
  });

  it("reads a permit's outcome from Permit2, an authorization's from the token", async () => {
    const nonce = `0x${"ab".repeat(32)}` as const;
    const upto = { payer: PAYER, nonce, validBefore: BigInt(deadline), upto: { payTo: PAY_TO } } as const;
    expect(await readAuthorizationOutcome(chain, upto, clock.now, "signer")).toEqual({ state: "open" });
    chain.settle(nonce);
    expect(await readAuthorizationOutcome(chain, upto, clock.now, "signer")).toEqual({ state: "open" });
    expect(await readAuthorizationOutcome(chain, { payer: PAYER, nonce, validBefore: BigInt(deadline) }, clock.now, "signer")).toMatchObject({ state: "used" });
    const txHash = chain.settlePermit(permit2NonceOf(nonce), 7n);
    expect(await readAuthorizationOutcome(chain, upto, clock.now, "signer")).toEqual({ state: "used", txHash, amount: 7n });
  });
});

describe("reviewSettlement", () => {
  const base = { service: "Meter", ceiling: 50_000n, quotedUnitPrice: 1_000n };
  it("is quiet when the settlement matches the metering, and says when the service declared none", () => {
    expect(reviewSettlement({ ...base, settled: 3_000n, metering: { unitsUsed: 3, unit: "row" }, reported: 3_000n })).toEqual({
      amount: "0.003",
      ceiling: "0.05",
      message: "Paid 0.003 USDC of a signed ceiling of 0.05 USDC (3 × row at 0.001 USDC).",
    });
    expect(reviewSettlement({ ...base, settled: 2_000n, metering: { unitsUsed: 3 } }).settlementFlag).toBeUndefined();
    expect(reviewSettlement({ service: "Meter", ceiling: 50_000n, settled: 9_000n }).message).toBe(
      "Paid 0.009 USDC of a signed ceiling of 0.05 USDC; Meter did not say what it used.",
    );
  });

  it("flags more than units × the quoted unit price, more than it says it charged, or more than it reported", () => {
    expect(reviewSettlement({ ...base, settled: 4_000n, metering: { unitsUsed: 3 } }).settlementFlag).toBe("over-settled");
    // The service's later word on its price does not raise what was agreed in its 402.
    expect(reviewSettlement({ ...base, settled: 6_000n, metering: { unitsUsed: 3, unitPrice: 2_000n } }).settlementFlag).toBe("over-settled");
    expect(
      reviewSettlement({ service: "Meter", ceiling: 50_000n, settled: 6_000n, metering: { unitsUsed: 3, unitPrice: 2_000n } }).settlementFlag,
    ).toBeUndefined();
    expect(reviewSettlement({ service: "Meter", ceiling: 50_000n, settled: 6_000n, metering: { unitsUsed: 3, charged: 5_000n } }).message).toMatch(
      /more than the 0\.005 USDC it says it charged/,
    );
    expect(reviewSettlement({ service: "Meter", ceiling: 50_000n, settled: 6_000n, reported: 0n }).settlementFlag).toBe("over-settled");
  });
});
