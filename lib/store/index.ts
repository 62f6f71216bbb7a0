/**
 * The shared store (server-only): spending ledger, idempotency keys, payment journal, API keys
 * and rate limits behind one interface; the app's is on the database (README.md says which
 * store holds what, and when each is chosen).
 */
export { createStore, getStore, resetStoreForTests, type CreateStoreOptions } from "./create-store";
export { createMemoryStore } from "./create-memory-store";
export { createRedisStore, type RedisStoreOptions } from "./create-redis-store";
export { STORE_RETRY_AFTER_SECONDS } from "./redis-connection";
export { IdempotencyRecord } from "./idempotency-record";
export * from "./store-types";
