import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort, skipRedisTests, startRedisServer, type RedisServerHandle } from "../../tests/support/redis-server";
import { AppError } from "../errors";
import { createStore } from "./create-store";
import { describeStoreContract } from "../../tests/support/store-contract";
import type { Store } from "./store-types";

const quiet = () => {};
const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";
const TX_HASH = `0x${"ab".repeat(32)}`;

/** Asserts that `operation` fails closed: AppError "unavailable:store", quickly. */
async function expectUnavailable(operation: () => Promise<unknown>, withinMs = 2000): Promise<void> {
  const started = Date.now();
  const error = await operation().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(AppError.isInstance(error), `expected AppError, got ${String(error)}`).toBe(true);
  expect((error as AppError).code).toBe("unavailable:store");
  expect((error as AppError).retryAfterSeconds).toBe(5);
  expect(Date.now() - started).toBeLessThan(withinMs);
}

function allOperations(store: Store): Array<[string, () => Promise<unknown>]> {
  return [
    ["ping", () => store.ping()],
    ["reserve", () => store.ledger.reserve({ payer: PAYER, reservationId: "r", amount: 1n, dailyLimit: 10n })],
    ["commit", () => store.ledger.commit("r", { txHash: TX_HASH })],
    ["release", () => store.ledger.release("r")],
    ["spentToday", () => store.ledger.spentToday(PAYER)],
    ["entries", () => store.ledger.entries(PAYER)],
    ["claim", () => store.idempotency.claim("k", 60)],
    ["complete", () => store.idempotency.complete("k", { status: "stop" }, 60)],
    ["get", () => store.idempotency.get("k")],
    ["idempotency release", () => store.idempotency.release("k")],
    ["hit", () => store.rateLimiter.hit("ip", { limit: 1, windowSeconds: 10 })],
  ];
}

// Skipped only on explicit request; a missing redis-server fails beforeAll with install advice.
describe.skipIf(skipRedisTests)("redis store", () => {
  let server: RedisServerHandle | undefined;

  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
  });

  function url(): string {
    if (!server) throw new Error("redis-server did not start (see the beforeAll error)");
    return server.url;
  }

  // Every call gets a fresh key prefix: stores that share it behave like instances of one deployment.
  describeStoreContract("redis", (count) => {
    const keyPrefix = `test:${randomUUID()}:`;
    return Array.from({ length: count }, () => createStore({ redisUrl: url(), keyPrefix, log: quiet }));
  });

  it("beside a database, holds the rate limits every instance shares while money stays in the database", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const first = createStore({ redisUrl: url(), keyPrefix, log: quiet, database: { kind: "pglite" } });
    const second = createStore({ redisUrl: url(), keyPrefix, log: quiet, database: { kind: "pglite" } });
    try {
      expect(first.kind).toBe("database");
      const options = { limit: 2, windowSeconds: 30 };
      const hits = [await first.rateLimiter.hit("ip:a", options), await second.rateLimiter.hit("ip:a", options), await first.rateLimiter.hit("ip:a", options)];
      expect(hits.map((hit) => hit.allowed)).toEqual([true, true, false]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 30_000);

  it("is chosen when a Redis URL is given", async () => {
    const store = createStore({ redisUrl: url(), log: quiet });
    expect(store.kind).toBe("redis");
    await store.close();
  });

  it("gives every key it writes an expiry, so Redis never fills up with stale state", async () => {
    const keyPrefix = `ttl:${randomUUID()}:`;
    const store = createStore({ redisUrl: url(), keyPrefix, log: quiet });
    const inspector = new Redis(url(), { lazyConnect: true });
    try {
      await store.ledger.reserve({ payer: PAYER, reservationId: "a", amount: 1n, dailyLimit: 10n });
      await store.ledger.reserve({ payer: PAYER, reservationId: "b", amount: 1n, dailyLimit: 10n });
      await store.ledger.commit("a", { txHash: TX_HASH });
      await store.idempotency.claim("k", 60);
      await store.rateLimiter.hit("ip", { limit: 5, windowSeconds: 10 });
      const keys = await inspector.keys(`${keyPrefix}*`);
      expect(keys.length).toBeGreaterThanOrEqual(6);
      for (const key of keys) expect(await inspector.pttl(key), key).toBeGreaterThan(0);
    } finally {
      inspector.disconnect();
      await store.close();
    }
  });

  it("fails closed, quickly, when nothing listens at the Redis URL", async () => {
    const closedPort = await findFreePort();
    const store = createStore({ redisUrl: `redis://127.0.0.1:${closedPort}`, log: quiet });
    try {
      for (const [name, operation] of allOperations(store)) {
        await expectUnavailable(operation).catch((error: unknown) => {
          throw new Error(`${name}: ${String(error)}`);
        });
      }
    } finally {
      await store.close();
    }
  });

  it("fails closed when Redis goes away, and recovers when it comes back on the same port", async () => {
    const first = await startRedisServer();
    const store = createStore({ redisUrl: first.url, log: quiet });
    let second: RedisServerHandle | undefined;
    try {
      expect((await store.ledger.reserve({ payer: PAYER, reservationId: "before", amount: 1n, dailyLimit: 10n })).ok).toBe(true);
      await first.stop();
      for (const [, operation] of allOperations(store)) await expectUnavailable(operation);

      second = await startRedisServer({ port: first.port });
      const deadline = Date.now() + 5000;
      let recovered = false;
      while (!recovered && Date.now() < deadline) {
        recovered = await store.ping().then(
          () => true,
          () => false,
        );
        if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(recovered).toBe(true);
      // A fresh server has no state: the store must not claim old state survived.
      expect(await store.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: 0n });
    } finally {
      await store.close();
      await first.stop();
      await second?.stop();
    }
  }, 15_000);

  it("fails closed within about two seconds when Redis accepts connections but never answers", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const store = createStore({ redisUrl: `redis://127.0.0.1:${port}`, log: quiet });
    try {
      await expectUnavailable(() => store.ledger.reserve({ payer: PAYER, reservationId: "r", amount: 1n, dailyLimit: 10n }), 2500);
      await expectUnavailable(() => store.rateLimiter.hit("ip", { limit: 1, windowSeconds: 10 }), 2500);
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 15_000);

  it("rejects operations after close", async () => {
    const store = createStore({ redisUrl: url(), log: quiet });
    await store.ping();
    await store.close();
    await expectUnavailable(() => store.ping());
  });
});
