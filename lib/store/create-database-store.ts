import "server-only";
/**
 * The store on the database: budgets (row per reservation, per-payer advisory lock),
 * idempotency keys and the payment journal, all durable, so a restart or a crash loses no
 * budget, no at-most-once record and no payment. Rate limits stay in process memory here (on
 * Vercel, Redis holds them). The database opens on first use, so building the store is cheap
 * and a database that is down is retried on the next call.
 */
import { DatabaseChannelLedger } from "../channels/database-channel-ledger";
import type { ChannelLedger } from "../channels/channel-ledger";
import { DatabaseApiKeyStore } from "../access/database-api-key-store";
import type { ApiKeyStore } from "../access/api-keys";
import { DatabaseGrantStore } from "../grants/database-grant-store";
import type { GrantStore } from "../grants/grants";
import { openDatabase, type AppDatabase, type OpenDatabaseOptions } from "../db/open-database";
import { DatabaseEvidenceStore } from "../evidence/database-evidence-store";
import type { EvidenceStore } from "../evidence/evidence-store";
import { DatabaseJournal } from "../journal/database-journal";
import type { PaymentJournal } from "../journal/payment-journal";
import { DatabaseIdempotencyStore } from "./database-idempotency-store";
import { DatabaseLedger } from "./database-ledger";
import { MemoryIdempotencyStore } from "./memory-idempotency-store";
import { MemoryRateLimiter } from "./memory-rate-limiter";
import type { IdempotencyStore, RateLimiter, SpendingLedger, Store } from "./store-types";

export type LazyDatabase = {
  /** PGlite: one process holds it at a time (lib/db/folder-lock.ts). */
  embedded: boolean;
  open(): Promise<AppDatabase>;
  journal: PaymentJournal;
  close(): Promise<void>;
};

/** A database opened on first use (and again after a failed open). */
export function lazyDatabase(options: OpenDatabaseOptions): LazyDatabase {
  let opened: Promise<AppDatabase> | undefined;
  const open = () => {
    opened ??= openDatabase(options).catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
  return {
    embedded: options.kind === "pglite",
    open,
    journal: deferred<PaymentJournal>(async () => new DatabaseJournal((await open()).db)),
    close: async () => {
      const database = opened ? await opened.catch(() => undefined) : undefined;
      opened = undefined;
      await database?.close();
    },
  };
}

export function createDatabaseStore(database: LazyDatabase, rateLimiter: RateLimiter = new MemoryRateLimiter()): Store {
  const idempotency = deferred<IdempotencyStore>(async () => new DatabaseIdempotencyStore((await database.open()).db));
  return {
    kind: "database",
    ledger: deferred<SpendingLedger>(async () => new DatabaseLedger((await database.open()).db)),
    idempotency,
    inFlight: database.embedded ? new MemoryIdempotencyStore() : idempotency,
    journal: database.journal,
    evidence: deferred<EvidenceStore>(async () => new DatabaseEvidenceStore((await database.open()).db)),
    apiKeys: deferred<ApiKeyStore>(async () => new DatabaseApiKeyStore((await database.open()).db)),
    grants: deferred<GrantStore>(async () => new DatabaseGrantStore((await database.open()).db)),
    channels: deferred<ChannelLedger>(async () => new DatabaseChannelLedger((await database.open()).db)),
    rateLimiter,
    ping: async () => {
      await database.open();
    },
    close: () => database.close(),
  };
}

/** An object whose async methods wait for the real one to be made (once). */
function deferred<T extends object>(make: () => Promise<T>): T {
  let made: Promise<T> | undefined;
  const target = () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
  return new Proxy({} as T, {
    get:
      (_object, property) =>
      (...args: unknown[]) =>
        target().then((real) => (real[property as keyof T] as (...values: unknown[]) => unknown).apply(real, args)),
  });
}
