import "server-only";
/**
 * Idempotency keys in the database: a claim is one INSERT … ON CONFLICT that takes the key only
 * when it is free or expired, so exactly one of many concurrent claimants wins, on any number
 * of instances, and a restart forgets nothing.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import { IdempotencyRecord, toJsonRecord } from "./idempotency-record";
import type { ClaimResult, IdempotencyStore } from "./store-types";
import { checkIdempotencyKey, checkPositiveInteger } from "./store-input";

export class DatabaseIdempotencyStore implements IdempotencyStore {
  /** `clock` exists for tests of expiry. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => number = Date.now,
  ) {}

  async claim(key: string, ttlSeconds: number): Promise<ClaimResult> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const now = this.clock();
    const taken = await sql<{ key: string }>`
      INSERT INTO idempotency_keys (key, state, record, expires_at) VALUES (${key}, 'pending', NULL, ${now + ttlSeconds * 1000})
      ON CONFLICT (key) DO UPDATE SET state = 'pending', record = NULL, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${now}
      RETURNING key`.execute(this.db);
    if (taken.rows.length > 0) return { claimed: true };
    const held = await this.read(key, now);
    return { claimed: false, record: held?.state === "complete" ? held.record : null };
  }

  async complete(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const value = JSON.stringify(toJsonRecord(record));
    const expiresAt = this.clock() + ttlSeconds * 1000;
    await this.db
      .insertInto("idempotency_keys")
      .values({ key, state: "complete", record: value, expires_at: expiresAt })
      .onConflict((conflict) => conflict.column("key").doUpdateSet({ state: "complete", record: value, expires_at: expiresAt }))
      .execute();
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    checkIdempotencyKey(key);
    const held = await this.read(key, this.clock());
    return held?.state === "complete" ? held.record : null;
  }

  async release(key: string): Promise<void> {
    checkIdempotencyKey(key);
    await this.db.deleteFrom("idempotency_keys").where("key", "=", key).where("state", "=", "pending").execute();
  }

  private async read(key: string, now: number): Promise<{ state: "pending" } | { state: "complete"; record: IdempotencyRecord } | undefined> {
    const row = await this.db.selectFrom("idempotency_keys").select(["state", "record"]).where("key", "=", key).where("expires_at", ">", now).executeTakeFirst();
    if (!row) return undefined;
    if (row.state === "pending") return { state: "pending" };
    const record = typeof row.record === "string" ? (JSON.parse(row.record) as unknown) : row.record;
    return { state: "complete", record: IdempotencyRecord.parse(record) };
  }
}
