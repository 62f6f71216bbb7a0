import "server-only";
/**
 * API keys in the database (`api_keys`, see lib/db/migrations/0003_api_keys.ts), shared by
 * every instance and kept across restarts. A row holds the sha256 of the secret, never the token.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import type { ApiKeysTable, Database } from "../db/schema";
import { isKeyId, judgeKey, newestFirst, newKeyRecord } from "./api-key-rules";
import { hashSecret, mintToken, parseToken, type ApiKeyRecord, type ApiKeyStore, type CreateApiKeyInput, type KeyCheck } from "./api-keys";
import { resolveNow } from "../clock";

export class DatabaseApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: CreateApiKeyInput): Promise<{ key: ApiKeyRecord; token: string }> {
    const { id, secret, token } = mintToken();
    const key = newKeyRecord(input, id);
    await this.db
      .insertInto("api_keys")
      .values({
        id,
        name: key.name,
        secret_hash: hashSecret(secret),
        per_payment: key.budget.perPayment,
        per_request: key.budget.perRequest,
        daily: key.budget.daily,
        agent_wallet: key.agentWallet,
        created_at: key.createdAt,
        expires_at: key.expiresAt,
        revoked_at: null,
      })
      .execute();
    return { key, token };
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom("api_keys").selectAll().orderBy("created_at", "desc").orderBy("id", "desc").execute();
    // Sorted again by the shared rule: the database's order is the same, this only pins it.
    return rows.map(toRecord).sort(newestFirst);
  }

  async revoke(id: string, now?: number): Promise<"revoked" | "already-revoked" | "not-found"> {
    const at = resolveNow(now);
    if (!isKeyId(id)) return "not-found";
    // One conditional UPDATE: of two concurrent revokes exactly one reports "revoked", and the
    // first revocation time is the one kept.
    const updated = await this.db
      .updateTable("api_keys")
      .set({ revoked_at: at })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .returning("id")
      .executeTakeFirst();
    if (updated) return "revoked";
    const exists = await this.db.selectFrom("api_keys").select("id").where("id", "=", id).executeTakeFirst();
    return exists ? "already-revoked" : "not-found";
  }

  /** Expiry is judged on the database's clock unless a test passes `now`. */
  async check(token: string, now?: number): Promise<KeyCheck> {
    const parsed = parseToken(token);
    if (!parsed) return { ok: false, reason: "malformed" };
    // One round trip: the row (if any) and the database's time.
    const { rows } = await sql<Partial<Selectable<ApiKeysTable>> & { db_now: string }>`
      SELECT k.*, clock.db_now FROM (SELECT db_now_ms()::text AS db_now) AS clock LEFT JOIN api_keys k ON k.id = ${parsed.id}`.execute(this.db);
    const found = rows[0];
    const at = now === undefined ? Number(found?.db_now) : resolveNow(now);
    const row = found?.id ? (found as Selectable<ApiKeysTable>) : undefined;
    return judgeKey(parsed.secret, row ? { key: toRecord(row), secretHash: row.secret_hash } : undefined, at);
  }
}

// Numeric and bigint columns arrive as strings from Postgres and may be numbers or bigints
// from PGlite (see schema.ts), so each is converted explicitly.
function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    budget: { perPayment: BigInt(row.per_payment), perRequest: BigInt(row.per_request), daily: BigInt(row.daily) },
    agentWallet: row.agent_wallet,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
