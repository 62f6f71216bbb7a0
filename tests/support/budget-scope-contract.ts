/**
 * Budgets per named caller, as every ledger that keeps them must behave (the database ledger
 * and the memory one): a scoped reservation counts against the payer's daily limit and the
 * scope's own, both checked and the reservation made atomically, or nothing is reserved.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../lib/store/store-types";
import type { MakeStores } from "./store-contract";

const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const CENT = 10_000n;

export function describeBudgetScopeContract(name: string, makeStores: MakeStores): void {
  describe(`${name}: budgets per caller`, () => {
    const opened: Store[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    async function open(count: number): Promise<Store[]> {
      const stores = await makeStores(count);
      opened.push(...stores);
      return stores;
    }

    it("refuses past a caller's budget while the wallet has room, and past the wallet's cap while the caller has room", async () => {
      const [{ ledger }] = (await open(1)) as [Store];
      const reserve = (id: string, key: string, scopeLimit: bigint, walletLimit = 100n * CENT) =>
        ledger.reserve({ payer: WALLET, reservationId: id, amount: CENT, dailyLimit: walletLimit, scope: { key, dailyLimit: scopeLimit }, now: T0 });
      expect(await reserve("a1", "key:a", 2n * CENT)).toEqual({ ok: true });
      expect(await reserve("a2", "key:a", 2n * CENT)).toEqual({ ok: true });
      expect(await reserve("a3", "key:a", 2n * CENT)).toEqual({ ok: false, reason: "scope", spent: 0n, reserved: 2n * CENT, dailyLimit: 2n * CENT });
      // Another caller has its own budget; the wallet's cap (3 cents here) counts everyone.
      expect(await reserve("b1", "key:b", 5n * CENT, 3n * CENT)).toEqual({ ok: true });
      expect(await reserve("b2", "key:b", 5n * CENT, 3n * CENT)).toEqual({ ok: false, reason: "daily", spent: 0n, reserved: 3n * CENT, dailyLimit: 3n * CENT });
      expect(await ledger.spentInScope("key:a", { now: T0 })).toEqual({ settled: 0n, reserved: 2n * CENT });
      expect(await ledger.spentInScope("key:b", { now: T0 })).toEqual({ settled: 0n, reserved: CENT });
      expect(await ledger.spentToday(WALLET, { now: T0 })).toEqual({ settled: 0n, reserved: 3n * CENT });
    });

    it("counts a committed payment in the scope for 24 hours and frees a released one at once", async () => {
      const [{ ledger }] = (await open(1)) as [Store];
      const scope = { key: "account:0xabc", dailyLimit: 2n * CENT };
      await ledger.reserve({ payer: WALLET, reservationId: "c1", amount: CENT, dailyLimit: 100n * CENT, scope, now: T0 });
      await ledger.reserve({ payer: WALLET, reservationId: "c2", amount: CENT, dailyLimit: 100n * CENT, scope, now: T0 });
      await ledger.commit("c1", { txHash: `0x${"1".padStart(64, "0")}`, now: T0 + 1_000 });
      await ledger.release("c2");
      expect(await ledger.spentInScope("account:0xabc", { now: T0 + 2_000 })).toEqual({ settled: CENT, reserved: 0n });
      expect((await ledger.reserve({ payer: WALLET, reservationId: "c3", amount: CENT, dailyLimit: 100n * CENT, scope, now: T0 + 2_000 })).ok).toBe(true);
      expect((await ledger.reserve({ payer: WALLET, reservationId: "c4", amount: CENT, dailyLimit: 100n * CENT, scope, now: T0 + 2_000 })).ok).toBe(false);
      // A day after the commit, only the later reservation is left in the scope.
      expect(await ledger.spentInScope("account:0xabc", { now: T0 + 1_000 + 24 * 3_600_000 })).toEqual({ settled: 0n, reserved: CENT });
    });

    it("counts a metered payment at what it settled in the caller's budget and the pool, and frees the rest of its ceiling", async () => {
      const [{ ledger }] = (await open(1)) as [Store];
      const scope = { key: "account:metered", dailyLimit: 10n * CENT };
      const pool = { key: "pool:metered", dailyLimit: 12n * CENT };
      const reserve = (id: string, amount: bigint, now = T0) =>
        ledger.reserve({ payer: WALLET, reservationId: id, amount, dailyLimit: 100n * CENT, scope, pool, now });
      // A ceiling of 8 leaves room for 2 in the caller's budget.
      expect(await reserve("m1", 8n * CENT)).toEqual({ ok: true });
      expect(await reserve("m2", 3n * CENT)).toMatchObject({ ok: false, reason: "scope" });
      await ledger.commit("m1", { txHash: `0x${"2".padStart(64, "0")}`, amount: 3n * CENT, now: T0 + 1_000 });
      expect(await ledger.spentInScope("account:metered", { now: T0 + 1_000 })).toEqual({ settled: 3n * CENT, reserved: 0n });
      expect(await reserve("m2", 7n * CENT, T0 + 1_000)).toEqual({ ok: true });
      expect(await reserve("m3", 1n, T0 + 1_000)).toMatchObject({ ok: false, reason: "scope" });
      // The pool counted the settled 3, not the ceiling of 8: 10 of its 12 are used.
      expect(
        await ledger.reserve({
          payer: WALLET,
          reservationId: "m4",
          amount: 2n * CENT,
          dailyLimit: 100n * CENT,
          scope: { key: "account:other", dailyLimit: 10n * CENT },
          pool,
          now: T0 + 1_000,
        }),
      ).toEqual({ ok: true });
      expect(
        await ledger.reserve({
          payer: WALLET,
          reservationId: "m5",
          amount: 1n,
          dailyLimit: 100n * CENT,
          scope: { key: "account:other", dailyLimit: 10n * CENT },
          pool,
          now: T0 + 1_000,
        }),
      ).toMatchObject({ ok: false, reason: "pool" });
    });

    it("treats a repeated scoped reserve as a retry, and refuses the same id under another scope", async () => {
      const [{ ledger }] = (await open(1)) as [Store];
      const input = { payer: WALLET, reservationId: "r", amount: CENT, dailyLimit: 100n * CENT, scope: { key: "key:a", dailyLimit: CENT }, now: T0 };
      expect(await ledger.reserve(input)).toEqual({ ok: true });
      expect(await ledger.reserve(input)).toEqual({ ok: true });
      await expect(ledger.reserve({ ...input, scope: { key: "key:b", dailyLimit: CENT } })).rejects.toThrow();
    });

    it("lets through exactly what both limits allow when 60 reservations race over two callers", async () => {
      const stores = await open(3);
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, index) => {
          const key = index % 2 === 0 ? "key:a" : "key:b";
          return stores[index % stores.length]!.ledger.reserve({
            payer: WALLET,
            reservationId: `race-${index}`,
            amount: CENT,
            dailyLimit: 20n * CENT,
            scope: { key, dailyLimit: key === "key:a" ? 8n * CENT : 15n * CENT },
            now: T0,
          });
        }),
      );
      const okFor = (parity: number) => results.filter((result, index) => result.ok && index % 2 === parity).length;
      // Each caller stays within its budget, and together they fill the wallet's cap of 20
      // exactly (their budgets add up to more), whichever order the race ran in.
      expect(okFor(0)).toBeLessThanOrEqual(8);
      expect(okFor(1)).toBeLessThanOrEqual(15);
      expect(okFor(0) + okFor(1)).toBe(20);
      expect(await stores[0]!.ledger.spentInScope("key:a", { now: T0 })).toEqual({ settled: 0n, reserved: BigInt(okFor(0)) * CENT });
      expect(await stores[0]!.ledger.spentInScope("key:b", { now: T0 })).toEqual({ settled: 0n, reserved: BigInt(okFor(1)) * CENT });
      expect(await stores[0]!.ledger.spentToday(WALLET, { now: T0 })).toEqual({ settled: 0n, reserved: 20n * CENT });
    });

    it("holds wallets that share a pool to the pool's cap, each to its own budget, under a race from many stores", async () => {
      const stores = await open(3);
      const pool = { key: "pool:open-sign-in", dailyLimit: 7n * CENT };
      // 12 wallets, 4 attempts each, 2 cents of budget each: 24 would fit their budgets, 7 the pool.
      const results = await Promise.all(
        Array.from({ length: 48 }, (_, index) =>
          stores[index % stores.length]!.ledger.reserve({
            payer: WALLET,
            reservationId: `pool-${index}`,
            amount: CENT,
            dailyLimit: 100n * CENT,
            scope: { key: `account:w${index % 12}`, dailyLimit: 2n * CENT },
            pool,
            now: T0,
          }),
        ),
      );
      const granted = results.filter((result) => result.ok).length;
      expect(granted).toBe(7);
      for (let wallet = 0; wallet < 12; wallet += 1) {
        expect((await stores[0]!.ledger.spentInScope(`account:w${wallet}`, { now: T0 })).reserved).toBeLessThanOrEqual(2n * CENT);
      }
      const refusals = results.filter((result) => !result.ok).map((result) => (result.ok ? "" : result.reason));
      expect(refusals).toContain("pool");
      // The pool's room comes back when a reservation is released, and a commit counts for 24 h.
      const firstOk = results.findIndex((result) => result.ok);
      await stores[1]!.ledger.release(`pool-${firstOk}`);
      const next = { payer: WALLET, amount: CENT, dailyLimit: 100n * CENT, scope: { key: "account:fresh", dailyLimit: 2n * CENT }, pool, now: T0 + 1_000 };
      expect(await stores[2]!.ledger.reserve({ ...next, reservationId: "pool-after-release" })).toEqual({ ok: true });
      expect(await stores[0]!.ledger.reserve({ ...next, reservationId: "pool-over" })).toMatchObject({ ok: false, reason: "pool", dailyLimit: 7n * CENT });
    });

    it("refuses a pool without a scope, and the same id under another pool", async () => {
      const [{ ledger }] = (await open(1)) as [Store];
      await expect(
        ledger.reserve({ payer: WALLET, reservationId: "p0", amount: CENT, dailyLimit: 100n * CENT, pool: { key: "pool:x", dailyLimit: CENT }, now: T0 }),
      ).rejects.toThrow(/scope/);
      const input = {
        payer: WALLET,
        reservationId: "p1",
        amount: CENT,
        dailyLimit: 100n * CENT,
        scope: { key: "account:a", dailyLimit: CENT },
        pool: { key: "pool:x", dailyLimit: CENT },
        now: T0,
      };
      expect(await ledger.reserve(input)).toEqual({ ok: true });
      expect(await ledger.reserve(input)).toEqual({ ok: true });
      await expect(ledger.reserve({ ...input, pool: { key: "pool:y", dailyLimit: CENT } })).rejects.toThrow();
    });
  });
}
