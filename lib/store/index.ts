/**
 * The shared store (server-only): spending ledger, idempotency keys and rate limits, in memory
 * or in Redis behind one interface.
 */
export { createStore, getStore, resetStoreForTests, type CreateStoreOptions } from "./create-store";
export { createMemoryStore } from "./create-memory-store";
export { createRedisStore, type RedisStoreOptions } from "./create-redis-store";
export { STORE_RETRY_AFTER_SECONDS } from "./redis-connection";
export { IdempotencyRecord } from "./idempotency-record";
export * from "./store-types";
