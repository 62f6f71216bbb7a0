import "server-only";
/**
 * Grants in the database (`grants`, migration 0014), shared by every instance and kept across
 * restarts. A row holds the sha256 of the token's secret, never the token. Times that decide
 * anything come from the database's clock (`db_now_ms()`) unless a test passes one.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import { getAddress } from "viem";
import { hashSecret, secretMatches } from "../auth/secret-token";
import type { Database, GrantsTable } from "../db/schema";
import { grantTokens, isGrantId, newestFirst, type FloatClaim, type GrantCheck, type GrantRecord, type GrantStore, type NewGrant } from "./grants";

export class DatabaseGrantStore implements GrantStore {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: NewGrant): Promise<{ grant: GrantRecord; token: string } | "duplicate"> {
    const { id, secret, token } = grantTokens.mint();
    const wallet = input.walletAddress.toLowerCase();
    const createdAt = input.now === undefined ? sql<number>`db_now_ms()` : sql<number>`${input.now}::bigint`;
    // One statement: the new grant, and the wallet's earlier grants ended by it (Permit2 keeps
    // one allowance per owner and spender, which the new permit has just replaced). A second
    // submission of the same permit (same wallet and nonce) inserts nothing and ends nothing.
    const { rows } = await sql<Selectable<GrantsTable>>`
      WITH inserted AS (
        INSERT INTO grants (id, wallet_address, amount, expires_at, nonce, permit_transaction, secret_hash, created_at)
        VALUES (${id}, ${wallet}, ${input.amount.toString()}, ${input.expiresAt}, ${input.nonce.toString()},
          ${input.permitTransaction}, ${hashSecret(secret)}, ${createdAt})
        ON CONFLICT (wallet_address, nonce) DO NOTHING
        RETURNING *
      ), ended AS (
        UPDATE grants SET replaced_by = (SELECT id FROM inserted)
        WHERE wallet_address = ${wallet} AND replaced_by IS NULL AND EXISTS (SELECT 1 FROM inserted)
      )
      SELECT * FROM inserted`.execute(this.db);
    const row = rows[0];
    return row ? { grant: toRecord(row), token } : "duplicate";
  }

  async get(id: string): Promise<GrantRecord | undefined> {
    if (!isGrantId(id)) return undefined;
    const row = await this.db.selectFrom("grants").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async list(walletAddress: `0x${string}`): Promise<GrantRecord[]> {
    const rows = await this.db
      .selectFrom("grants")
      .selectAll()
      .where("wallet_address", "=", walletAddress.toLowerCase())
      .orderBy("created_at", "desc")
      .execute();
    return rows.map(toRecord).sort(newestFirst);
  }

  async revoke(id: string, walletAddress: `0x${string}`, now?: number): Promise<"revoked" | "already-revoked" | "not-found"> {
    if (!isGrantId(id)) return "not-found";
    const wallet = walletAddress.toLowerCase();
    // One conditional UPDATE: of two concurrent revokes exactly one reports "revoked".
    const updated = await this.db
      .updateTable("grants")
      .set({ revoked_at: now === undefined ? sql<number>`db_now_ms()` : now })
      .where("id", "=", id)
      .where("wallet_address", "=", wallet)
      .where("revoked_at", "is", null)
      .returning("id")
      .executeTakeFirst();
    if (updated) return "revoked";
    const exists = await this.db.selectFrom("grants").select("id").where("id", "=", id).where("wallet_address", "=", wallet).executeTakeFirst();
    return exists ? "already-revoked" : "not-found";
  }

  async check(token: string): Promise<GrantCheck> {
    const parsed = grantTokens.parse(token);
    if (!parsed) return { ok: false, reason: "malformed" };
    const row = await this.db.selectFrom("grants").selectAll().where("id", "=", parsed.id).executeTakeFirst();
    if (!secretMatches(parsed.secret, row?.secret_hash) || !row) return { ok: false, reason: "unknown" };
    return { ok: true, grant: toRecord(row) };
  }

  async endedUnswept(limit: number, now?: number): Promise<GrantRecord[]> {
    const at = now === undefined ? sql<number>`db_now_ms()` : sql<number>`${now}::bigint`;
    const { rows } = await sql<Selectable<GrantsTable>>`
      SELECT * FROM grants
      WHERE swept_at IS NULL AND replaced_by IS NULL AND (revoked_at IS NOT NULL OR expires_at <= ${at})
        AND float_claimed_until <= db_now_ms()
      ORDER BY expires_at, id
      LIMIT ${limit}`.execute(this.db);
    return rows.map(toRecord);
  }

  async claimFloat(id: string, holdMs: number, holder: string, now?: number): Promise<FloatClaim> {
    if (!isGrantId(id)) return "kept";
    const at = now === undefined ? sql<number>`db_now_ms()` : sql<number>`${now}::bigint`;
    // One conditional UPDATE: the row's lock makes two instances' claims take turns, and the
    // second sees the first's claim and updates nothing. It claims only a grant ended on one
    // reading of the database's clock, and the same reading tells a grant still active (kept)
    // from a claim another holds.
    const { rows } = await sql<{ claimed: boolean; ended: boolean }>`
      WITH clock AS MATERIALIZED (SELECT ${at} AS at),
      claimed AS (
        UPDATE grants SET float_claimed_until = db_now_ms() + ${holdMs}, float_claimed_by = ${holder}
        WHERE id = ${id} AND swept_at IS NULL AND float_claimed_until <= db_now_ms()
          AND replaced_by IS NULL AND (revoked_at IS NOT NULL OR expires_at <= (SELECT at FROM clock))
        RETURNING id
      )
      SELECT EXISTS (SELECT 1 FROM claimed) AS claimed,
        replaced_by IS NULL AND (revoked_at IS NOT NULL OR expires_at <= (SELECT at FROM clock)) AS ended
      FROM grants WHERE id = ${id}`.execute(this.db);
    const row = rows[0];
    if (row?.claimed) return "claimed";
    return row?.ended ? "held" : "kept";
  }

  async releaseFloat(id: string, holder: string, outcome: { returned: bigint; swept: boolean }): Promise<void> {
    const mine = sql<boolean>`float_claimed_by = ${holder}`;
    await sql`
      UPDATE grants SET
        float_returned = float_returned + ${outcome.returned.toString()}::numeric,
        swept_at = CASE WHEN ${mine} AND ${outcome.swept}::boolean THEN coalesce(swept_at, db_now_ms()) ELSE swept_at END,
        float_claimed_until = CASE WHEN ${mine} THEN 0 ELSE float_claimed_until END,
        float_claimed_by = CASE WHEN ${mine} THEN NULL ELSE float_claimed_by END
      WHERE id = ${id}`.execute(this.db);
  }
}

// Numeric and bigint columns arrive as strings from Postgres and may be numbers or bigints
// from PGlite (lib/db/schema.ts), so each is converted explicitly.
function toRecord(row: Selectable<GrantsTable>): GrantRecord {
  return {
    id: row.id,
    walletAddress: getAddress(row.wallet_address),
    amount: BigInt(row.amount),
    expiresAt: Number(row.expires_at),
    nonce: BigInt(row.nonce),
    permitTransaction: row.permit_transaction as `0x${string}`,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    replacedBy: row.replaced_by,
    floatReturned: BigInt(row.float_returned),
    sweptAt: row.swept_at === null ? null : Number(row.swept_at),
  };
}
