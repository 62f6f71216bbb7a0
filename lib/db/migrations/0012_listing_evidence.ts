import "server-only";
/**
 * Migration 0012: evidence about each listing, shared by every instance (lib/evidence).
 *
 * - `listing_evidence`: one row per listing (its resource), holding the last unpaid probe's
 *   verdict until `expires_at`, and the claim (`claimed_until`) that lets one instance, and only
 *   one, probe it per interval. Both times come from `db_now_ms()`: instances never compare
 *   their own clocks. A row whose verdict is NULL is a claim whose probe has not reported yet.
 * - Two indexes for the journal's outcomes per listing and per payee (what our money did there),
 *   read at each discovery: by the resource without its query string (a call fills one in) and
 *   by payee, each newest first.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const listingEvidenceMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE listing_evidence (
        listing_key text PRIMARY KEY,
        verdict text,
        detail text,
        latency_ms integer,
        checked_at bigint,
        expires_at bigint NOT NULL DEFAULT 0,
        claimed_until bigint NOT NULL DEFAULT 0,
        claimed_by text
      )`.execute(db);
    await sql`CREATE INDEX listing_evidence_by_expiry ON listing_evidence (greatest(expires_at, claimed_until))`.execute(db);
    await sql`CREATE INDEX payments_by_listing ON payments ((split_part(resource, '?', 1)), created_at DESC) WHERE resource IS NOT NULL`.execute(db);
    await sql`CREATE INDEX payments_by_payee ON payments (lower(pay_to), created_at DESC) WHERE pay_to IS NOT NULL`.execute(db);
  },
};
