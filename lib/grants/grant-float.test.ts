/**
 * Returning an ended grant's float (grant-float.ts), on the memory grant store and a fake chain:
 * kept while the grant is active or replaced, returned once it ended and nothing is in flight,
 * swept only when the account is idle and empty, and sent once however many ask at the same time.
 */
import { describe, expect, it } from "vitest";
import { returnEndedFloat, type FloatOptions } from "./grant-float";
import type { MoveOutcome } from "./grant-funds";
import type { GrantRecord } from "./grants";
import { MemoryGrantStore } from "./memory-grant-store";

const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const PAYER = { key: `0x${"11".repeat(32)}` as const, address: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const };
const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 27, 12);

function world(balance: bigint) {
  const state = { balance, reserved: 0n, sweeps: [] as bigint[], failNext: false };
  const grants = new MemoryGrantStore();
  // The instance's clock and the store's (the database's): the same unless a test moves one.
  const clocks = { instance: T0, store: T0 };
  const options: FloatOptions = {
    grants,
    funds: {
      balanceOf: async () => state.balance,
      async sweep(_key, to, amount): Promise<MoveOutcome> {
        expect(to).toBe(WALLET);
        if (state.failNext) {
          state.failNext = false;
          throw new Error("the chain did not answer");
        }
        // Another caller's sweep may be waiting on the chain meanwhile: yield before the move.
        await new Promise((resolve) => setImmediate(resolve));
        state.sweeps.push(amount);
        state.balance -= amount;
        return { ok: true, transaction: `0x${"ab".repeat(32)}` };
      },
    },
    reservedFor: async () => state.reserved,
    now: () => clocks.instance,
    storeNow: () => clocks.store,
  };
  async function grant(nonce = 0n): Promise<GrantRecord> {
    const made = await grants.create({ walletAddress: WALLET, amount: 50n, expiresAt: T0 + HOUR, nonce, permitTransaction: `0x${"cd".repeat(32)}`, now: T0 });
    if (made === "duplicate") throw new Error("unexpected duplicate");
    return made.grant;
  }
  const setClock = (at: number) => Object.assign(clocks, { instance: at, store: at });
  return { state, grants, options, grant, setClock, setInstanceClock: (at: number) => (clocks.instance = at) };
}

describe("returning an ended grant's float", () => {
  it("keeps it while the grant is active, and returns it once, swept, when the grant expired", async () => {
    const { state, grants, options, grant, setClock } = world(8n);
    const active = await grant();
    expect(await returnEndedFloat(options, active, PAYER)).toEqual({ state: "kept" });
    expect(state.sweeps).toEqual([]);

    setClock(T0 + HOUR);
    expect(await returnEndedFloat(options, active, PAYER)).toEqual({ state: "returned", returned: 8n, swept: true });
    expect(state.sweeps).toEqual([8n]);
    expect(await grants.get(active.id)).toMatchObject({ floatReturned: 8n, sweptAt: expect.any(Number) });
    // Swept: nobody returns anything for it again.
    expect(await returnEndedFloat(options, active, PAYER)).toEqual({ state: "claimed-elsewhere" });
    expect(state.sweeps).toEqual([8n]);
  });

  it("keeps the float of a grant still active on the store's clock, though the instance's clock says it expired", async () => {
    const { state, grants, options, grant, setClock, setInstanceClock } = world(8n);
    const active = await grant();
    setInstanceClock(T0 + 2 * HOUR);
    expect(await returnEndedFloat(options, active, PAYER)).toEqual({ state: "kept" });
    expect(state.sweeps).toEqual([]);
    expect(state.balance).toBe(8n);
    expect(await grants.get(active.id)).toMatchObject({ floatReturned: 0n, sweptAt: null });
    // Not claimed either: once the store's clock says it ended, the return goes through at once.
    setClock(T0 + HOUR);
    expect(await returnEndedFloat(options, active, PAYER)).toEqual({ state: "returned", returned: 8n, swept: true });
  });

  it("keeps a replaced grant's float for the newer grant", async () => {
    const { state, options, grant, setClock } = world(8n);
    const older = await grant(0n);
    await grant(1n);
    setClock(T0 + 2 * HOUR);
    expect(await returnEndedFloat(options, older, PAYER)).toEqual({ state: "kept" });
    expect(state.sweeps).toEqual([]);
  });

  it("returns nothing while a payment of the account is in flight, and leaves the grant for the next run", async () => {
    const { state, grants, options, grant, setClock } = world(8n);
    const ended = await grant();
    setClock(T0 + HOUR);
    state.reserved = 5n;
    expect(await returnEndedFloat(options, ended, PAYER)).toEqual({ state: "returned", returned: 0n, swept: false });
    expect(state.sweeps).toEqual([]);
    expect((await grants.endedUnswept(10, T0 + HOUR)).map((candidate) => candidate.id)).toEqual([ended.id]);
    state.reserved = 0n;
    expect(await returnEndedFloat(options, ended, PAYER)).toEqual({ state: "returned", returned: 8n, swept: true });
  });

  it("a return that throws releases its claim unswept; the next one sends it", async () => {
    const { state, grants, options, grant, setClock } = world(8n);
    const ended = await grant();
    setClock(T0 + HOUR);
    state.failNext = true;
    await expect(returnEndedFloat(options, ended, PAYER)).rejects.toThrow(/did not answer/);
    expect(await grants.get(ended.id)).toMatchObject({ floatReturned: 0n, sweptAt: null });
    expect(await returnEndedFloat(options, ended, PAYER)).toEqual({ state: "returned", returned: 8n, swept: true });
  });

  it("of five asking at once, one sends the return", async () => {
    const { state, options, grant, setClock } = world(8n);
    const ended = await grant();
    setClock(T0 + HOUR);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => returnEndedFloat(options, ended, PAYER)));
    expect(state.sweeps).toEqual([8n]);
    expect(outcomes.filter((outcome) => outcome.state === "returned")).toHaveLength(1);
  });
});
