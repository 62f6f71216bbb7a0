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
import { checkIdempotencyKey, checkPositiveInteger } from "../limits/store-input";

export class DatabaseIdempotencyStore implements IdempotencyStore {
  /**
   * `clock` exists for tests of expiry; without it every expiry is on the database's clock
   * (`db_now_ms()`, migration 0009), the one clock all instances share.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock?: () => number,
  ) {}

  async claim(key: string, ttlSeconds: number, holder?: string): Promise<ClaimResult> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const now = this.now();
    const taken = await sql<{ key: string }>`
      WITH clock AS (SELECT ${now} AS now_ms)
      INSERT INTO idempotency_keys (key, state, record, expires_at, holder)
      SELECT ${key}, 'pending', NULL, clock.now_ms + ${ttlSeconds * 1000}, ${holder ?? null} FROM clock
      ON CONFLICT (key) DO UPDATE SET state = 'pending', record = NULL, expires_at = EXCLUDED.expires_at, holder = EXCLUDED.holder
      -- Taken over only once the old claim or record has expired (its expiry <= now_ms).
      WHERE idempotency_keys.expires_at <= EXCLUDED.expires_at - ${ttlSeconds * 1000}
      RETURNING key`.execute(this.db);
    if (taken.rows.length > 0) return { claimed: true };
    const held = await this.read(key);
    if (held?.state === "complete") return { claimed: false, record: held.record };
    // Gone between the two statements (completed and expired, or released): busy, briefly.
    return { claimed: false, record: null, lapsesInMs: held?.lapsesInMs ?? 0, ...(held?.holder ? { holder: held.holder } : {}) };
  }

  async complete(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const value = JSON.stringify(toJsonRecord(record));
    const expiresAt = sql<number>`${this.now()} + ${ttlSeconds * 1000}`;
    await this.db
      .insertInto("idempotency_keys")
      .values({ key, state: "complete", record: value, expires_at: expiresAt, holder: null })
      .onConflict((conflict) => conflict.column("key").doUpdateSet({ state: "complete", record: value, expires_at: expiresAt, holder: null }))
      .execute();
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    checkIdempotencyKey(key);
    const held = await this.read(key);
    return held?.state === "complete" ? held.record : null;
  }

  async release(key: string, holder?: string): Promise<void> {
    checkIdempotencyKey(key);
    let statement = this.db.deleteFrom("idempotency_keys").where("key", "=", key).where("state", "=", "pending");
    if (holder !== undefined) statement = statement.where("holder", "=", holder);
    await statement.execute();
  }

  /** The time every comparison uses: the test's clock, or the database's. */
  private now() {
    return this.clock ? sql<number>`${this.clock()}::bigint` : sql<number>`db_now_ms()`;
  }

  private async read(
    key: string,
  ): Promise<{ state: "pending"; lapsesInMs: number; holder: string | null } | { state: "complete"; record: IdempotencyRecord } | undefined> {
    const { rows } = await sql<{ state: "pending" | "complete"; record: unknown; holder: string | null; lapses_in_ms: string }>`
      WITH clock AS (SELECT ${this.now()} AS now_ms)
      SELECT k.state, k.record, k.holder, (k.expires_at - clock.now_ms)::text AS lapses_in_ms
      FROM idempotency_keys k, clock WHERE k.key = ${key} AND k.expires_at > clock.now_ms`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    if (row.state === "pending") return { state: "pending", lapsesInMs: Number(row.lapses_in_ms), holder: row.holder };
    const record = typeof row.record === "string" ? (JSON.parse(row.record) as unknown) : row.record;
    return { state: "complete", record: IdempotencyRecord.parse(record) };
  }
}
