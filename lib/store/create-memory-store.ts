/**
 * The in-process store: correct for one instance only. With several instances (Vercel) each
 * would keep its own budget, so production sets REDIS_URL (see create-store.ts).
 */
import { MemoryIdempotencyStore } from "./memory-idempotency-store";
import { MemoryLedger } from "./memory-ledger";
import { MemoryRateLimiter } from "./memory-rate-limiter";
import { MemoryJournal } from "../journal/memory-journal";
import { MemoryApiKeyStore } from "../access/memory-api-key-store";
import { MemoryGrantStore } from "../grants/memory-grant-store";
import { MemoryEvidenceStore } from "../evidence/memory-evidence-store";
import type { Store } from "./store-types";

/**
 * @example
 * const store = createMemoryStore();
 * await store.ledger.spentToday(payer); // { settled: 0n, reserved: 0n }
 */
export function createMemoryStore(): Store {
  const journal = new MemoryJournal();
  return {
    kind: "memory",
    ledger: new MemoryLedger(),
    idempotency: new MemoryIdempotencyStore(),
    inFlight: new MemoryIdempotencyStore(),
    rateLimiter: new MemoryRateLimiter(),
    journal,
    evidence: new MemoryEvidenceStore(journal),
    apiKeys: new MemoryApiKeyStore(),
    grants: new MemoryGrantStore(),
    ping: async () => {},
    close: async () => {},
  };
}
