import "server-only";
/**
 * Chooses the store: Redis when a URL is given (many instances share budgets, rate limits and
 * idempotency), otherwise process memory (one instance: development, tests, a single server).
 */
import { AppError } from "../errors";
import { getEnv } from "../env";
import { createMemoryStore } from "./create-memory-store";
import { createRedisStore, type RedisStoreOptions } from "./create-redis-store";
import type { Store } from "./store-types";

export type CreateStoreOptions = Partial<Omit<RedisStoreOptions, "url">> & {
  /** redis:// or rediss:// URL; absent or empty means the in-memory store. */
  redisUrl?: string;
};

/**
 * @example
 * const store = createStore({ redisUrl: process.env.REDIS_URL });
 * try {
 *   await store.ledger.reserve({ payer, reservationId, amount, dailyLimit });
 * } finally {
 *   await store.close();
 * }
 */
export function createStore(options: CreateStoreOptions = {}): Store {
  const { redisUrl, ...redisOptions } = options;
  return redisUrl ? createRedisStore({ ...redisOptions, url: redisUrl }) : createMemoryStore();
}

// Kept on globalThis so Next.js dev reloads reuse one connection instead of leaking one per reload.
const STORE_KEY = Symbol.for("x402-agent.store");
type StoreHolder = { [STORE_KEY]?: Store };

/**
 * The process-wide store, created on first use from REDIS_URL (see lib/env.ts).
 *
 * @throws AppError "unavailable:not_configured" on Vercel without REDIS_URL: each instance
 * would keep its own budget there, so the daily limit would not hold.
 * @example
 * const { ledger } = getStore();
 */
export function getStore(): Store {
  const holder = globalThis as StoreHolder;
  const existing = holder[STORE_KEY];
  if (existing) return existing;
  const env = getEnv();
  if (!env.REDIS_URL && env.VERCEL) {
    throw new AppError("unavailable:not_configured", {
      details: "REDIS_URL is required on Vercel: in-memory budgets and rate limits are per instance",
    });
  }
  const store = createStore({ redisUrl: env.REDIS_URL });
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
