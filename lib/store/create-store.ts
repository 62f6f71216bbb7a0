import "server-only";
/**
 * Chooses the store. Money facts are durable: the payment journal, the budgets and the
 * at-most-once keys live in the database (Postgres with DATABASE_URL, otherwise PGlite in
 * DATA_DIR); Redis, when configured, holds the rate limits every instance shares. Measured
 * (`npm run bench:ledger`), a payment's budget bookkeeping costs about 2.5 ms on the database
 * against about 1 ms on Redis, well under 1% of a paid turn, so budgets stay beside the journal.
 * Without a database (unit tests) everything is in memory, or in Redis when only Redis is given.
 */
import path from "node:path";
import { AppError } from "../errors";
import { getEnv, type Env } from "../env";
import type { OpenDatabaseOptions } from "../db/open-database";
import { MemoryJournal } from "../journal/memory-journal";
import { createDatabaseStore, lazyDatabase } from "./create-database-store";
import { createMemoryStore } from "./create-memory-store";
import { createRedisStore, type RedisStoreOptions } from "./create-redis-store";
import { RedisConnection } from "./redis-connection";
import { RedisRateLimiter } from "./redis-rate-limiter";
import type { Store } from "./store-types";

export type CreateStoreOptions = Partial<Omit<RedisStoreOptions, "url" | "journal">> & {
  /** redis:// or rediss:// URL; absent or empty means no Redis. */
  redisUrl?: string;
  /** The database; absent means memory only (tests). */
  database?: OpenDatabaseOptions;
};

/**
 * @example
 * const store = createStore({ database: { kind: "pglite", dataDir: ".data/pglite" } });
 * try {
 *   await store.ledger.reserve({ payer, reservationId, amount, dailyLimit });
 * } finally {
 *   await store.close();
 * }
 */
export function createStore(options: CreateStoreOptions = {}): Store {
  const { redisUrl, database: databaseOptions, ...redisOptions } = options;
  const database = databaseOptions ? lazyDatabase(databaseOptions) : undefined;
  if (database && redisUrl) {
    const connection = new RedisConnection({ ...redisOptions, url: redisUrl });
    const store = createDatabaseStore(database, new RedisRateLimiter(connection, redisOptions.keyPrefix ?? "x402:"));
    return { ...store, close: async () => void (await Promise.all([store.close(), connection.close()])) };
  }
  if (database) return createDatabaseStore(database);
  if (redisUrl) return createRedisStore({ ...redisOptions, url: redisUrl, journal: new MemoryJournal() });
  return createMemoryStore();
}

/** Where the database is, from the environment. */
export function databaseOptionsFromEnv(env: Pick<Env, "DATABASE_URL" | "DATA_DIR">): OpenDatabaseOptions {
  return env.DATABASE_URL ? { kind: "postgres", url: env.DATABASE_URL } : { kind: "pglite", dataDir: path.resolve(env.DATA_DIR, "pglite") };
}

// Kept on globalThis so Next.js dev reloads reuse one connection instead of leaking one per reload.
const STORE_KEY = Symbol.for("x402-agent.store");
type StoreHolder = { [STORE_KEY]?: Store };

/**
 * The process-wide store, created on first use from DATABASE_URL, DATA_DIR and REDIS_URL.
 *
 * @throws AppError "unavailable:not_configured" on Vercel without REDIS_URL (each instance
 * would keep its own rate limits) or without DATABASE_URL (its file system does not last).
 * @example
 * const { ledger, journal } = getStore();
 */
export function getStore(): Store {
  const holder = globalThis as StoreHolder;
  const existing = holder[STORE_KEY];
  if (existing) return existing;
  const env = getEnv();
  if (env.VERCEL && (!env.REDIS_URL || !env.DATABASE_URL)) {
    throw new AppError("unavailable:not_configured", {
      details: "REDIS_URL and DATABASE_URL are required on Vercel: instances share rate limits and budgets, and the journal needs a lasting database",
    });
  }
  const store = createStore({ redisUrl: env.REDIS_URL, database: databaseOptionsFromEnv(env) });
  holder[STORE_KEY] = store;
  return store;
}

/** Tests only: closes and forgets the process-wide store. */
export async function resetStoreForTests(): Promise<void> {
  const holder = globalThis as StoreHolder;
  const store = holder[STORE_KEY];
  delete holder[STORE_KEY];
  await store?.close();
}
