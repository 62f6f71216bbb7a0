import "server-only";
/**
 * The Redis-backed store, for any number of instances (Vercel). Fails closed: while Redis is
 * unreachable, every operation rejects with AppError "unavailable:store" (see redis-connection.ts).
 */
import { RedisConnection, type RedisConnectionOptions } from "./redis-connection";
import { RedisIdempotencyStore } from "./redis-idempotency-store";
import { RedisLedger } from "./redis-ledger";
import { RedisRateLimiter } from "./redis-rate-limiter";
import type { PaymentJournal } from "../journal/payment-journal";
import { MemoryEvidenceStore } from "../evidence/memory-evidence-store";
import { MemoryApiKeyStore } from "../access/memory-api-key-store";
import { MemoryGrantStore } from "../grants/memory-grant-store";
import type { Store } from "./store-types";

export type RedisStoreOptions = RedisConnectionOptions & {
  /** Prefix of every key, so one Redis can serve several deployments or tests; default "x402:". */
  keyPrefix?: string;
  /** Where payments are recorded for good; Redis keeps budgets and keys for their window only. */
  journal: PaymentJournal;
};

/**
 * @example
 * const store = createRedisStore({ url: "redis://127.0.0.1:6379" });
 * await store.ping();
 * await store.close();
 */
export function createRedisStore(options: RedisStoreOptions): Store {
  const connection = new RedisConnection(options);
  const keyPrefix = options.keyPrefix ?? "x402:";
  const idempotency = new RedisIdempotencyStore(connection, keyPrefix);
  return {
    kind: "redis",
    ledger: new RedisLedger(connection, keyPrefix),
    idempotency,
    inFlight: idempotency,
    rateLimiter: new RedisRateLimiter(connection, keyPrefix),
    journal: options.journal,
    // Evidence lives beside the journal: here, in this process (a database shares it).
    evidence: new MemoryEvidenceStore(options.journal),
    // A Redis-only store has no database: keys then live only in this process, are lost on
    // restart and are not seen by other instances. With DATABASE_URL (create-store.ts) they
    // are in the database.
    apiKeys: new MemoryApiKeyStore(),
    grants: new MemoryGrantStore(),
    ping: async () => {
      await connection.run((client) => client.ping());
    },
    close: () => connection.close(),
  };
}
