/**
 * The behaviour every Store implementation must have, as one vitest suite. memory-store.test.ts
 * and redis-store.test.ts run it against their implementation, so both behave the same.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { DAILY_WINDOW_MS, RESERVATION_TTL_MS } from "../../lib/limits/budget-window";
import type { Store } from "../../lib/store/store-types";

/**
 * Returns `count` stores that share one fresh, empty backend, as separate server instances
 * would (the memory implementation can only return the same store `count` times).
 */
export type MakeStores = (count: number) => Store[] | Promise<Store[]>;

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const OTHER_PAYER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const USDC = 1_000_000n;

function txHash(seed: number): string {
  return `0x${seed.toString(16).padStart(64, "0")}`;
}

/**
 * @example
 * describeStoreContract("memory store", (count) => Array(count).fill(createMemoryStore()));
 */
export function describeStoreContract(name: string, makeStores: MakeStores): void {
  describe(`${name}: store contract`, () => {
    const opened: Store[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    async function open(count = 1): Promise<Store[]> {
      const stores = await makeStores(count);
      opened.push(...stores);
      return stores;
    }
    async function openOne(): Promise<Store> {
      const [store] = await open(1);
      if (!store) throw new Error("makeStores returned no store");
      return store;
    }

    describe("spending ledger", () => {
      it("reserves within the daily limit, allows reaching it exactly, and refuses one unit more", async () => {
        const { ledger } = await openOne();
        expect(await ledger.reserve({ payer: PAYER, reservationId: "a", amount: 3n * USDC, dailyLimit: 5n * USDC, now: T0 })).toEqual({ ok: true });
        expect(await ledger.reserve({ payer: PAYER, reservationId: "b", amount: 2n * USDC, dailyLimit: 5n * USDC, now: T0 })).toEqual({ ok: true });
        expect(await ledger.reserve({ payer: PAYER, reservationId: "c", amount: 1n, dailyLimit: 5n * USDC, now: T0 })).toEqual({
          ok: false,
          reason: "daily",
          spent: 0n,
          reserved: 5n * USDC,
          dailyLimit: 5n * USDC,
        });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 5n * USDC });
      });

      it("counts settled spending and outstanding reservations together", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "settled", amount: 2n * USDC, dailyLimit: 5n * USDC, now: T0 });
        await ledger.commit("settled", { txHash: txHash(1), now: T0 });
        await ledger.reserve({ payer: PAYER, reservationId: "pending", amount: 2n * USDC, dailyLimit: 5n * USDC, now: T0 });
        expect(await ledger.reserve({ payer: PAYER, reservationId: "x", amount: 2n * USDC, dailyLimit: 5n * USDC, now: T0 })).toEqual({
          ok: false,
          reason: "daily",
          spent: 2n * USDC,
          reserved: 2n * USDC,
          dailyLimit: 5n * USDC,
        });
        expect(await ledger.reserve({ payer: PAYER, reservationId: "y", amount: USDC, dailyLimit: 5n * USDC, now: T0 })).toEqual({ ok: true });
      });

      it("refuses without reserving anything, so a refused amount does not block a smaller one", async () => {
        const { ledger } = await openOne();
        expect((await ledger.reserve({ payer: PAYER, reservationId: "big", amount: 6n * USDC, dailyLimit: 5n * USDC, now: T0 })).ok).toBe(false);
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 0n });
        expect((await ledger.reserve({ payer: PAYER, reservationId: "small", amount: 5n * USDC, dailyLimit: 5n * USDC, now: T0 })).ok).toBe(true);
      });

      it("keys payers case-insensitively and keeps payers apart", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "a", amount: 4n * USDC, dailyLimit: 5n * USDC, now: T0 });
        const lower = PAYER.toLowerCase();
        const upper = `0x${PAYER.slice(2).toUpperCase()}`;
        expect(await ledger.spentToday(lower, { now: T0 })).toEqual({ settled: 0n, reserved: 4n * USDC });
        expect((await ledger.reserve({ payer: upper, reservationId: "b", amount: 2n * USDC, dailyLimit: 5n * USDC, now: T0 })).ok).toBe(false);
        expect((await ledger.reserve({ payer: OTHER_PAYER, reservationId: "c", amount: 5n * USDC, dailyLimit: 5n * USDC, now: T0 })).ok).toBe(true);
        expect(await ledger.spentToday(OTHER_PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 5n * USDC });
      });

      it("lets exactly k of 100 concurrent reservations through when the limit is k times the amount", async () => {
        const stores = await open(4);
        const amount = 250_000n;
        const k = 7n;
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, index) =>
            stores[index % stores.length]!.ledger.reserve({
              payer: PAYER,
              reservationId: `concurrent-${index}`,
              amount,
              dailyLimit: k * amount,
              now: T0,
            }),
          ),
        );
        expect(results.filter((result) => result.ok)).toHaveLength(Number(k));
        expect(await stores[0]!.ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: k * amount });
      });

      it("turns a reservation into settled spending on commit, once", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "pay-1", amount: 1_500_000n, dailyLimit: 5n * USDC, now: T0 });
        const first = await ledger.commit("pay-1", { txHash: txHash(1), now: T0 + 1000 });
        expect(first).toEqual({ status: "committed", entry: { reservationId: "pay-1", amount: 1_500_000n, txHash: txHash(1), at: T0 + 1000 } });
        const again = await ledger.commit("pay-1", { txHash: txHash(2), now: T0 + 2000 });
        expect(again).toEqual({ status: "already-committed", entry: { reservationId: "pay-1", amount: 1_500_000n, txHash: txHash(1), at: T0 + 1000 } });
        expect(await ledger.spentToday(PAYER, { now: T0 + 3000 })).toEqual({ settled: 1_500_000n, reserved: 0n });
        expect(await ledger.entries(PAYER, { now: T0 + 3000 })).toEqual([{ reservationId: "pay-1", amount: 1_500_000n, txHash: txHash(1), at: T0 + 1000 }]);
      });

      it("commits a metered payment at what it settled and frees the rest of its ceiling at once", async () => {
        const { ledger } = await openOne();
        // Two ceilings of 2 fill a limit of 4: nothing more fits while both are reserved.
        await ledger.reserve({ payer: PAYER, reservationId: "upto-1", amount: 2n * USDC, dailyLimit: 4n * USDC, now: T0 });
        await ledger.reserve({ payer: PAYER, reservationId: "upto-2", amount: 2n * USDC, dailyLimit: 4n * USDC, now: T0 });
        expect((await ledger.reserve({ payer: PAYER, reservationId: "later", amount: USDC, dailyLimit: 4n * USDC, now: T0 })).ok).toBe(false);
        const first = await ledger.commit("upto-1", { txHash: txHash(11), amount: 300_000n, now: T0 + 1000 });
        expect(first).toEqual({ status: "committed", entry: { reservationId: "upto-1", amount: 300_000n, txHash: txHash(11), at: T0 + 1000 } });
        expect(await ledger.spentToday(PAYER, { now: T0 + 1000 })).toEqual({ settled: 300_000n, reserved: 2n * USDC });
        // The 1.7 freed by the commit is room for a later payment; one unit more is not.
        expect((await ledger.reserve({ payer: PAYER, reservationId: "later", amount: 1_700_000n, dailyLimit: 4n * USDC, now: T0 + 1000 })).ok).toBe(true);
        expect((await ledger.reserve({ payer: PAYER, reservationId: "more", amount: 1n, dailyLimit: 4n * USDC, now: T0 + 1000 })).ok).toBe(false);
        // A repeat returns the first commit, whatever amount it names.
        expect(await ledger.commit("upto-1", { txHash: txHash(12), amount: 1n, now: T0 + 2000 })).toEqual({
          status: "already-committed",
          entry: first.status === "committed" ? first.entry : undefined,
        });
        // Zero is a settled amount too, and the ceiling itself is allowed.
        expect((await ledger.commit("upto-2", { txHash: txHash(13), amount: 2n * USDC, now: T0 + 2000 })).status).toBe("committed");
        expect(await ledger.entries(PAYER, { now: T0 + 3000 })).toEqual([
          { reservationId: "upto-1", amount: 300_000n, txHash: txHash(11), at: T0 + 1000 },
          { reservationId: "upto-2", amount: 2n * USDC, txHash: txHash(13), at: T0 + 2000 },
        ]);
      });

      it("refuses to commit more than was reserved and keeps holding the reservation", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "ceiling", amount: USDC, dailyLimit: 5n * USDC, now: T0 });
        await expect(ledger.commit("ceiling", { txHash: txHash(14), amount: USDC + 1n, now: T0 })).rejects.toThrow(RangeError);
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: USDC });
        expect(await ledger.commit("ceiling", { txHash: txHash(14), amount: 0n, now: T0 })).toEqual({
          status: "committed",
          entry: { reservationId: "ceiling", amount: 0n, txHash: txHash(14), at: T0 },
        });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 0n });
        expect(await ledger.release("ceiling")).toEqual({ status: "already-committed" });
      });

      it("lets concurrent commits of one reservation at different amounts record exactly one", async () => {
        const stores = await open(3);
        await stores[0]!.ledger.reserve({ payer: PAYER, reservationId: "race", amount: USDC, dailyLimit: 5n * USDC, now: T0 });
        const results = await Promise.all(
          [100n, 200n, 300n, 400n, 500n, 600n].map((amount, index) =>
            stores[index % stores.length]!.ledger.commit("race", { txHash: txHash(20 + index), amount, now: T0 }),
          ),
        );
        const winners = results.filter((result) => result.status === "committed");
        expect(winners).toHaveLength(1);
        const winner = winners[0]!.status === "committed" ? winners[0]!.entry : undefined;
        for (const result of results) expect(result.status === "not-found" ? undefined : result.entry).toEqual(winner);
        expect(await stores[0]!.ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: winner?.amount, reserved: 0n });
      });

      it("releases a reservation once; release after commit and commit after release change nothing", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "r", amount: USDC, dailyLimit: 5n * USDC, now: T0 });
        expect(await ledger.release("r")).toEqual({ status: "released" });
        expect(await ledger.release("r")).toEqual({ status: "not-found" });
        expect(await ledger.commit("r", { txHash: txHash(3), now: T0 })).toEqual({ status: "not-found" });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 0n });
        expect(await ledger.entries(PAYER, { now: T0 })).toEqual([]);

        await ledger.reserve({ payer: PAYER, reservationId: "c", amount: USDC, dailyLimit: 5n * USDC, now: T0 });
        await ledger.commit("c", { txHash: txHash(4), now: T0 });
        expect(await ledger.release("c")).toEqual({ status: "already-committed" });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: USDC, reserved: 0n });
      });

      it("answers not-found for reservations it never saw", async () => {
        const { ledger } = await openOne();
        expect(await ledger.commit("never", { txHash: txHash(5) })).toEqual({ status: "not-found" });
        expect(await ledger.release("never")).toEqual({ status: "not-found" });
      });

      it("treats a repeated reserve with the same id as a retry, and refuses to reuse an id for another amount or payer", async () => {
        const { ledger } = await openOne();
        const input = { payer: PAYER, reservationId: "retry", amount: 3n * USDC, dailyLimit: 5n * USDC, now: T0 };
        expect(await ledger.reserve(input)).toEqual({ ok: true });
        expect(await ledger.reserve(input)).toEqual({ ok: true });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 0n, reserved: 3n * USDC });
        await expect(ledger.reserve({ ...input, amount: 1n })).rejects.toThrow(/already used/);
        await expect(ledger.reserve({ ...input, payer: OTHER_PAYER })).rejects.toThrow(/already used/);
        await ledger.commit("retry", { txHash: txHash(6), now: T0 });
        expect(await ledger.reserve(input)).toEqual({ ok: true });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: 3n * USDC, reserved: 0n });
      });

      it("counts settled spending for a rolling 24 hours, then frees it", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "old", amount: 4n * USDC, dailyLimit: 5n * USDC, now: T0 });
        await ledger.commit("old", { txHash: txHash(7), now: T0 });
        const justInside = T0 + DAILY_WINDOW_MS - 1;
        expect(await ledger.spentToday(PAYER, { now: justInside })).toEqual({ settled: 4n * USDC, reserved: 0n });
        expect((await ledger.reserve({ payer: PAYER, reservationId: "early", amount: 2n * USDC, dailyLimit: 5n * USDC, now: justInside })).ok).toBe(false);
        const justOutside = T0 + DAILY_WINDOW_MS;
        expect(await ledger.spentToday(PAYER, { now: justOutside })).toEqual({ settled: 0n, reserved: 0n });
        expect(await ledger.entries(PAYER, { now: justOutside })).toEqual([]);
        expect(await ledger.reserve({ payer: PAYER, reservationId: "later", amount: 5n * USDC, dailyLimit: 5n * USDC, now: justOutside })).toEqual({
          ok: true,
        });
      });

      it("keeps an unreleased reservation for its whole safety TTL, not less", async () => {
        const { ledger } = await openOne();
        await ledger.reserve({ payer: PAYER, reservationId: "stuck", amount: 5n * USDC, dailyLimit: 5n * USDC, now: T0 });
        const hourLater = T0 + 60 * 60 * 1000;
        expect(await ledger.spentToday(PAYER, { now: hourLater })).toEqual({ settled: 0n, reserved: 5n * USDC });
        expect((await ledger.reserve({ payer: PAYER, reservationId: "blocked", amount: 1n, dailyLimit: 5n * USDC, now: hourLater })).ok).toBe(false);
        const expired = T0 + RESERVATION_TTL_MS;
        expect(await ledger.spentToday(PAYER, { now: expired })).toEqual({ settled: 0n, reserved: 0n });
        expect((await ledger.reserve({ payer: PAYER, reservationId: "free", amount: 5n * USDC, dailyLimit: 5n * USDC, now: expired })).ok).toBe(true);
      });

      it("lists settled entries oldest first for reconciliation", async () => {
        const { ledger } = await openOne();
        for (const [index, offset] of [3000, 1000, 2000].entries()) {
          await ledger.reserve({ payer: PAYER, reservationId: `e${index}`, amount: BigInt(index + 1), dailyLimit: USDC, now: T0 });
          await ledger.commit(`e${index}`, { txHash: txHash(index), now: T0 + offset });
        }
        await ledger.reserve({ payer: PAYER, reservationId: "open", amount: 9n, dailyLimit: USDC, now: T0 });
        expect((await ledger.entries(PAYER, { now: T0 + 5000 })).map((entry) => [entry.reservationId, entry.amount, entry.at])).toEqual([
          ["e1", 2n, T0 + 1000],
          ["e2", 3n, T0 + 2000],
          ["e0", 1n, T0 + 3000],
        ]);
      });

      it("adds and compares amounts beyond 2^53 base units exactly", async () => {
        const { ledger } = await openOne();
        const huge = 10n ** 20n + 1n;
        const limit = 2n * huge + 1n;
        expect((await ledger.reserve({ payer: PAYER, reservationId: "h1", amount: huge, dailyLimit: limit, now: T0 })).ok).toBe(true);
        expect((await ledger.reserve({ payer: PAYER, reservationId: "h2", amount: huge, dailyLimit: limit, now: T0 })).ok).toBe(true);
        expect((await ledger.reserve({ payer: PAYER, reservationId: "h3", amount: 2n, dailyLimit: limit, now: T0 })).ok).toBe(false);
        expect((await ledger.reserve({ payer: PAYER, reservationId: "h4", amount: 1n, dailyLimit: limit, now: T0 })).ok).toBe(true);
        await ledger.commit("h1", { txHash: txHash(8), now: T0 });
        expect(await ledger.spentToday(PAYER, { now: T0 })).toEqual({ settled: huge, reserved: huge + 1n });
      });

      it("decides like bigint arithmetic for arbitrary amounts", async () => {
        const { ledger } = await openOne();
        const amount = fc.bigInt({ min: 0n, max: 10n ** 24n });
        let run = 0;
        await fc.assert(
          fc.asyncProperty(amount, amount, amount, async (first, second, dailyLimit) => {
            run += 1;
            const payer = `0x${run.toString(16).padStart(40, "0")}`;
            const firstResult = await ledger.reserve({ payer, reservationId: `p${run}-1`, amount: first, dailyLimit, now: T0 });
            const reserved = firstResult.ok ? first : 0n;
            expect(firstResult.ok).toBe(first <= dailyLimit);
            const secondResult = await ledger.reserve({ payer, reservationId: `p${run}-2`, amount: second, dailyLimit, now: T0 });
            expect(secondResult.ok).toBe(reserved + second <= dailyLimit);
            if (!secondResult.ok) expect(secondResult).toMatchObject({ spent: 0n, reserved });
          }),
          { numRuns: 60 },
        );
      });

      it("refuses malformed arguments as bugs", async () => {
        const { ledger } = await openOne();
        await expect(ledger.reserve({ payer: "alice", reservationId: "x", amount: 1n, dailyLimit: 1n })).rejects.toThrow(TypeError);
        await expect(ledger.reserve({ payer: PAYER, reservationId: "has space", amount: 1n, dailyLimit: 1n })).rejects.toThrow(TypeError);
        await expect(ledger.reserve({ payer: PAYER, reservationId: "x", amount: -1n, dailyLimit: 1n })).rejects.toThrow(RangeError);
        await expect(ledger.commit("x", { txHash: "not-a-hash" })).rejects.toThrow(TypeError);
      });
    });

    describe("idempotency store", () => {
      it("lets the first claimant work, tells others it is in progress, then hands out the record", async () => {
        const { idempotency } = await openOne();
        expect(await idempotency.claim("k1", 60, "instance-a/request-1")).toEqual({ claimed: true });
        const refused = await idempotency.claim("k1", 60, "instance-b/request-2");
        // The holder is the first claimant, and the claim lapses within its TTL on the store's clock.
        expect(refused).toMatchObject({ claimed: false, record: null, holder: "instance-a/request-1" });
        expect(refused.claimed === false && refused.record === null && refused.lapsesInMs).toBeGreaterThan(55_000);
        expect(refused.claimed === false && refused.record === null && refused.lapsesInMs).toBeLessThanOrEqual(60_000);
        expect(await idempotency.get("k1")).toBeNull();
        const record = { status: "payment-complete", txHash: txHash(9), outcome: { finishReason: "payment-complete", payments: [1, 2] } };
        await idempotency.complete("k1", record, 60);
        expect(await idempotency.claim("k1", 60)).toEqual({ claimed: false, record });
        expect(await idempotency.get("k1")).toEqual(record);
        expect(await idempotency.get("unknown")).toBeNull();
      });

      it("grants exactly one of many concurrent claims", async () => {
        const stores = await open(4);
        const results = await Promise.all(Array.from({ length: 50 }, (_, index) => stores[index % stores.length]!.idempotency.claim("race", 60)));
        expect(results.filter((result) => result.claimed)).toHaveLength(1);
      });

      it("releases an unfinished claim so a retry can proceed, but keeps a completed record", async () => {
        const { idempotency } = await openOne();
        await idempotency.claim("k2", 60);
        await idempotency.release("k2");
        expect(await idempotency.claim("k2", 60)).toEqual({ claimed: true });
        await idempotency.complete("k2", { status: "stop" }, 60);
        await idempotency.release("k2");
        expect(await idempotency.get("k2")).toEqual({ status: "stop" });
      });

      it("lets a holder release only its own claim", async () => {
        const { idempotency } = await openOne();
        await idempotency.claim("mine", 60, "instance-a/1");
        await idempotency.release("mine", "instance-b/2");
        expect(await idempotency.claim("mine", 60, "instance-b/3")).toMatchObject({ claimed: false, holder: "instance-a/1" });
        await idempotency.release("mine", "instance-a/1");
        expect(await idempotency.claim("mine", 60, "instance-b/3")).toEqual({ claimed: true });
      });

      it("forgets a claim after its TTL", async () => {
        const { idempotency } = await openOne();
        const claimedAt = Date.now();
        await idempotency.claim("short", 1);
        expect(await idempotency.claim("short", 1)).toMatchObject({ claimed: false, record: null });
        // Polled until the key can be claimed again (a refused claim changes nothing), and that
        // must not happen before the TTL has passed.
        await expect.poll(async () => (await idempotency.claim("short", 1)).claimed, { timeout: 3_000, interval: 50 }).toBe(true);
        expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(900);
      });

      it("keeps only what survives JSON and refuses what cannot", async () => {
        const { idempotency } = await openOne();
        await idempotency.complete("json", { status: "stop", dropped: undefined, when: new Date(0) } as never, 60);
        expect(await idempotency.get("json")).toEqual({ status: "stop", when: "1970-01-01T00:00:00.000Z" });
        await expect(idempotency.complete("bad", { status: "stop", amount: 1n } as never, 60)).rejects.toThrow();
        await expect(idempotency.complete("bad", { txHash: "0x1" } as never, 60)).rejects.toThrow();
      });
    });

    describe("rate limiter", () => {
      it("allows exactly `limit` hits per window, then reports none left and when the window resets", async () => {
        const { rateLimiter } = await openOne();
        const options = { limit: 5, windowSeconds: 60, now: T0 + 1500 };
        const results = [];
        for (let hit = 0; hit < 7; hit += 1) results.push(await rateLimiter.hit("client-a", options));
        expect(results.map((result) => [result.allowed, result.remaining])).toEqual([
          [true, 4],
          [true, 3],
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
          [false, 0],
        ]);
        for (const result of results) {
          expect(result.limit).toBe(5);
          expect(result.resetSeconds).toBeGreaterThan(0);
          expect(result.resetSeconds).toBeLessThanOrEqual(60);
        }
        expect(results[0]!.resetSeconds).toBe(59);
      });

      it("starts counting again in the next window and keeps keys apart", async () => {
        const { rateLimiter } = await openOne();
        const options = { limit: 1, windowSeconds: 10, now: T0 };
        expect((await rateLimiter.hit("a", options)).allowed).toBe(true);
        expect((await rateLimiter.hit("a", options)).allowed).toBe(false);
        expect((await rateLimiter.hit("b", options)).allowed).toBe(true);
        expect((await rateLimiter.hit("a", { ...options, now: T0 + 10_000 })).allowed).toBe(true);
      });

      it("counts concurrent hits exactly", async () => {
        const stores = await open(4);
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) => stores[index % stores.length]!.rateLimiter.hit("burst", { limit: 10, windowSeconds: 30, now: T0 })),
        );
        expect(results.filter((result) => result.allowed)).toHaveLength(10);
      });

      it("uses the real clock when no `now` is given", async () => {
        const { rateLimiter } = await openOne();
        const result = await rateLimiter.hit("clock", { limit: 2, windowSeconds: 5 });
        expect(result).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
        expect(result.resetSeconds).toBeGreaterThanOrEqual(1);
        expect(result.resetSeconds).toBeLessThanOrEqual(5);
      });
    });

    it("answers ping", async () => {
      await expect((await openOne()).ping()).resolves.toBeUndefined();
    });
  });
}
