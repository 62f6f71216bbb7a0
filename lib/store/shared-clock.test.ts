/**
 * Instances of one deployment share a store, not a clock. These tests give each "instance" its
 * own connection (its own pool or Redis client, as separate processes have) and a clock that is
 * days off, and show that budgets, claims and rate-limit windows are decided by the store's clock
 * alone: an instance's skew can neither hide a payment another instance committed nor free a
 * claim another instance holds.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { skipRedisTests, startRedisServer, type RedisServerHandle } from "../../tests/support/redis-server";
import { createDatabaseStore, lazyDatabase } from "./create-database-store";
import { createRedisStore } from "./create-redis-store";
import { MemoryJournal } from "../journal/memory-journal";
import type { Store } from "./store-types";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const DAY_MS = 24 * 60 * 60 * 1000;
const txHash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** Runs `work` with this process's clock moved by `offsetMs`, as on an instance whose clock is off. */
async function withClockOff<T>(offsetMs: number, work: () => Promise<T>): Promise<T> {
  const realNow = Date.now.bind(Date);
  const spy = vi.spyOn(Date, "now").mockImplementation(() => realNow() + offsetMs);
  try {
    return await work();
  } finally {
    spy.mockRestore();
  }
}

type Instances = () => Promise<{ instances: Store[]; close: () => Promise<void> }>;

function describeSharedClock(name: string, open: Instances, options: { ledger: boolean; sharedKeys?: boolean }) {
  describe(`${name}: one clock for every instance`, () => {
    let opened: Awaited<ReturnType<Instances>> | undefined;
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });
    const two = async () => {
      opened = await open();
      const [a, b] = opened.instances;
      if (!a || !b) throw new Error("expected two instances");
      return [a, b] as const;
    };

    it.runIf(options.ledger)("counts a payment another instance committed, whichever way either clock is off", async () => {
      const [a, b] = await two();
      const limit = 20_000n;
      // Instance A pays 0.01 with a clock two days slow.
      await withClockOff(-2 * DAY_MS, async () => {
        expect(await a.ledger.reserve({ payer: PAYER, reservationId: "a1", amount: 10_000n, dailyLimit: limit })).toEqual({ ok: true });
        expect((await a.ledger.commit("a1", { txHash: txHash(1) })).status).toBe("committed");
      });
      // Instance B, two days fast, still sees it: one more 0.01 fits, a second does not.
      await withClockOff(2 * DAY_MS, async () => {
        expect(await b.ledger.spentToday(PAYER)).toEqual({ settled: 10_000n, reserved: 0n });
        expect(await b.ledger.reserve({ payer: PAYER, reservationId: "b1", amount: 10_000n, dailyLimit: limit })).toEqual({ ok: true });
        expect((await b.ledger.commit("b1", { txHash: txHash(2) })).status).toBe("committed");
      });
      // And A, slow again, sees B's commit (before, a commit "after now" was not counted).
      await withClockOff(-2 * DAY_MS, async () => {
        expect(await a.ledger.reserve({ payer: PAYER, reservationId: "a2", amount: 1n, dailyLimit: limit })).toMatchObject({
          ok: false,
          reason: "daily",
          spent: 20_000n,
        });
        expect((await a.ledger.entries(PAYER)).map((entry) => entry.reservationId)).toEqual(["a1", "b1"]);
      });
    });

    it.runIf(options.ledger)("keeps a reservation made by a slow instance outstanding for a fast one", async () => {
      const [a, b] = await two();
      await withClockOff(-2 * DAY_MS, () => a.ledger.reserve({ payer: PAYER, reservationId: "held", amount: 15_000n, dailyLimit: 20_000n }));
      await withClockOff(2 * DAY_MS, async () => {
        expect(await b.ledger.reserve({ payer: PAYER, reservationId: "more", amount: 10_000n, dailyLimit: 20_000n })).toMatchObject({
          ok: false,
          reserved: 15_000n,
        });
      });
    });

    it("does not let a slow instance's claim look expired to the others, nor a fast one's last too long", async () => {
      const [a, b] = await two();
      await withClockOff(-2 * DAY_MS, () => a.idempotency.claim("slow", 60, "instance-a/1"));
      const refused = await b.idempotency.claim("slow", 60, "instance-b/1");
      expect(refused).toMatchObject({ claimed: false, record: null, holder: "instance-a/1" });
      await withClockOff(2 * DAY_MS, () => a.idempotency.claim("fast", 60, "instance-a/2"));
      const lapses = await b.idempotency.claim("fast", 60, "instance-b/2");
      expect(lapses.claimed === false && lapses.record === null ? lapses.lapsesInMs : -1).toBeGreaterThan(0);
      expect(lapses.claimed === false && lapses.record === null ? lapses.lapsesInMs : Infinity).toBeLessThanOrEqual(60_000);
    });

    it.runIf(options.sharedKeys === true)("judges an API key's expiry on the database's clock, not a fast instance's", async () => {
      const [a, b] = await two();
      const { token } = await a.apiKeys.create({
        name: "expires in an hour",
        budget: { perPayment: 1n, perRequest: 1n, daily: 1n },
        agentWallet: true,
        expiresAt: Date.now() + 3_600_000,
      });
      expect((await withClockOff(2 * 3_600_000, () => b.apiKeys.check(token))).ok).toBe(true);
      expect(await b.apiKeys.check(token, Date.now() + 2 * 3_600_000)).toEqual({ ok: false, reason: "expired" });
    });

    it.runIf(options.ledger)("holds the cap when two instances reserve and commit at the same moments", async () => {
      const [a, b] = await two();
      const amount = 10_000n;
      const limit = 50_000n;
      // Each worker reserves and commits at once, so commits land while others are reserving:
      // the interleaving in which a commit used to fall outside both "reserved" and "committed".
      for (let run = 0; run < 3; run += 1) {
        const payer = `0x${randomUUID().replaceAll("-", "").padEnd(40, "0").slice(0, 40)}`;
        const outcomes = await Promise.all(
          Array.from({ length: 24 }, async (_, index) => {
            const store = index % 2 === 0 ? a : b;
            const reservationId = `run${run}-${index}`;
            const reserved = await store.ledger.reserve({ payer, reservationId, amount, dailyLimit: limit });
            if (!reserved.ok) return 0n;
            await store.ledger.commit(reservationId, { txHash: txHash(run * 100 + index) });
            return amount;
          }),
        );
        const paid = outcomes.reduce<bigint>((sum, value) => sum + value, 0n);
        expect(paid, `run ${run}`).toBe(limit);
        expect((await a.ledger.spentToday(payer)).settled, `run ${run}`).toBe(limit);
      }
    });
  });
}

describe.skipIf(skipPostgresTests)("PostgreSQL", () => {
  let server: PostgresServerHandle | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  describeSharedClock(
    "database (PostgreSQL)",
    async () => {
      if (!server) throw new Error("postgres did not start (see the beforeAll error)");
      const url = await server.database();
      // One pool per instance: the two see each other only through the database.
      const databases = [lazyDatabase({ kind: "postgres", url }), lazyDatabase({ kind: "postgres", url })];
      const instances = databases.map((database) => createDatabaseStore(database));
      // The second waits for the first's migrations, as a second instance starting would.
      await instances[0]?.ping();
      return { instances, close: async () => void (await Promise.all(instances.map((store) => store.close()))) };
    },
    { ledger: true, sharedKeys: true },
  );
});

describe.skipIf(skipRedisTests)("Redis", () => {
  let server: RedisServerHandle | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const instancesOnRedis: Instances = async () => {
    if (!server) throw new Error("redis-server did not start (see the beforeAll error)");
    const keyPrefix = `skew-${randomUUID()}:`;
    const url = server.url;
    const instances = [0, 1].map(() => createRedisStore({ url, keyPrefix, journal: new MemoryJournal() }));
    return { instances, close: async () => void (await Promise.all(instances.map((store) => store.close()))) };
  };
  describeSharedClock("redis", instancesOnRedis, { ledger: true });

  it("counts hits from instances whose clocks disagree into one window", async () => {
    const { instances, close } = await instancesOnRedis();
    try {
      const [a, b] = instances as [Store, Store];
      // An hour-long window and A a whole window fast: by its own clock A is always in the next
      // window (a window boundary passing during the few hits is a one-in-a-million chance).
      const options = { limit: 3, windowSeconds: 3600 };
      for (let hit = 0; hit < 3; hit += 1) expect((await withClockOff(3_600_000, () => a.rateLimiter.hit("ip:203.0.113.9", options))).allowed).toBe(true);
      expect(await b.rateLimiter.hit("ip:203.0.113.9", options)).toMatchObject({ allowed: false, remaining: 0 });
    } finally {
      await close();
    }
  });
});
